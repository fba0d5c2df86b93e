// Which stack npm run demo and npm run token talk to: the one their variables place when any is
// set; otherwise the one data/stack.json records (npm start wrote it, whatever ports it was given);
// otherwise the default addresses, said as such, so that no command talks to a stack unannounced.
import { readStackFile, shownStackFile, stackFilePath, type RecordedStack } from './stack-file.ts';
import { stackAddresses, type Environment, type StackAddresses } from './processes.ts';

export interface LocatedStack {
  readonly addresses: StackAddresses;
  /** One line naming the stack and how it was found, to say once it answers. */
  readonly found: string;
  /** Why these addresses, for the line that says nothing answers there: `nothing answers at <url>`, with where the URL came from. */
  readonly unreachable: string;
}

/** The variables that place what the demo and the token reach: any of them set, and the variables decide, not the stack file. */
const addressVariables = [
  'PLATFORM_HOST',
  'PLATFORM_PORT',
  'PLATFORM_ISSUER',
  'MCP_HOST',
  'MCP_PORT',
  'MCP_PUBLIC_URL',
  'WEBHOOK_API_HOST',
  'WEBHOOK_API_PORT',
];

/** When a stack was ready, as a person reads it (`2026-11-25 14:03:12`, local time). */
const shownTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toLocaleString('sv-SE'));

/**
 * The stack a command of a second terminal talks to. Throws a SETTINGS_INVALID PlatformError on a
 * bad variable, and an Error on a stack file that is not one; each message is one line.
 */
export function locateStack(env: Environment): LocatedStack {
  const set = addressVariables.filter((name) => env[name]);
  const defaults = stackAddresses(env, 'embedded');
  if (set.length > 0) {
    return {
      addresses: defaults,
      found: `using the stack at ${defaults.platformUrl} (${set.join(', ')} set)`,
      unreachable: `nothing answers at ${defaults.platformUrl}`,
    };
  }
  const file = stackFilePath(env);
  const shown = shownStackFile(file);
  const state = readStackFile(file);
  if (state.kind === 'running') return recorded(state.stack, shown, env, defaults);
  const none =
    state.kind === 'absent' ? `no ${shown}` : `the stack ${shown} names stopped without removing it (${state.stack.command}, pid ${state.stack.pid})`;
  return {
    addresses: defaults,
    found: `using the stack at the default address ${defaults.platformUrl} (${none})`,
    unreachable: `${none}, and nothing answers at the default address ${defaults.platformUrl}`,
  };
}

function recorded(stack: RecordedStack, shown: string, env: Environment, defaults: StackAddresses): LocatedStack {
  const { platformUrl, mcpUrl } = stack.addresses;
  return {
    // The demo's receiver is the demo's own: a DEMO_RECEIVER_PORT or DEMO_RECEIVER_HOST of this terminal moves it.
    addresses: env.DEMO_RECEIVER_PORT || env.DEMO_RECEIVER_HOST ? { ...stack.addresses, receiverUrl: defaults.receiverUrl } : stack.addresses,
    found: `using the stack ${stack.command} started at ${shownTime(stack.startedAt)} (${shown}): platform ${platformUrl}, MCP ${mcpUrl}`,
    unreachable: `${shown} names it, but nothing answers at ${platformUrl}`,
  };
}
