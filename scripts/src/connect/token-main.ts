// `npm run token -- <username> [--api]`: prints a seeded person's token from the running dev
// platform, for the MCP gateway (default) or, with --api, for the platform and webhook REST API.
// The stack is the one data/stack.json records unless variables place it (see stack/locator.ts),
// named on stderr: only the token goes to stdout, so `$(npm run -s token -- oscar)` can be used in
// a command.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { parseArgs } from 'node:util';
import { personToken } from '../stack/platform-session.ts';
import { locateStack, type LocatedStack } from '../stack/locator.ts';

const usage = 'usage: npm run token -- <username> [--api]   (the seeded people: oscar, vera, olivia, bjorn)';
let parsed;
let stack: LocatedStack;
try {
  parsed = parseArgs({ allowPositionals: true, options: { api: { type: 'boolean', default: false } } });
  stack = locateStack(process.env);
} catch (error) {
  console.error(`npm run token: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}
const { positionals, values } = parsed;
const [username] = positionals;
if (!username || positionals.length > 1) {
  console.error(usage);
  process.exit(2);
}
const at = stack.addresses;
try {
  const { accessToken } = await personToken(at.platformUrl, username, values.api ? undefined : at.mcpUrl);
  console.error(stack.found);
  process.stdout.write(`${accessToken}\n`);
} catch (error) {
  const unreachable = error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError');
  const reason = unreachable ? `the stack is not running (${stack.unreachable}): start it with npm start` : (error as Error).message;
  console.error(`no token: ${reason}`);
  process.exit(1);
}
