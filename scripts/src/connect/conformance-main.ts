// `npm run conformance -- [--as <username>] <the suite's server options>`: the official MCP
// conformance suite against the running stack's gateway (found as the demo finds it), signed in as a
// seeded person (oscar by default). With the fixture tools behind the gateway
// (`npm run example -- conformance-tools`), `npm run conformance -- --requirements 2026-07-28` runs
// what that revision requires; mcp-server/test/conformance-baseline.yml says what does not apply.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { spawn } from 'node:child_process';
import { conformanceArgs, conformanceEnv } from '@platform/devtools/conformance-suite';
import { personToken } from '../stack/platform-session.ts';
import { locateStack } from '../stack/locator.ts';

const usage =
  "usage: npm run conformance -- [--as <username>] <options of the suite's server command>, e.g. --requirements 2026-07-28 or --scenario tools-call-image";
const args = process.argv.slice(2);
const as = args[0] === '--as' ? args[1] : undefined;
const suiteArgs = as === undefined ? args : args.slice(2);
if (suiteArgs.length === 0 || (args[0] === '--as' && !as)) {
  console.error(usage);
  process.exit(2);
}
let stack;
try {
  stack = locateStack(process.env);
} catch (error) {
  console.error(`npm run conformance: ${(error as Error).message}`);
  process.exit(2);
}
const { mcpUrl, platformUrl } = stack.addresses;
let token: string;
try {
  token = (await personToken(platformUrl, as ?? 'oscar', mcpUrl)).accessToken;
} catch (error) {
  const unreachable = error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError');
  console.error(`npm run conformance: ${unreachable ? `the stack is not running (${stack.unreachable}): start it with npm start` : (error as Error).message}`);
  process.exit(1);
}
console.error(`${stack.found}; the suite runs against ${mcpUrl} as ${as ?? 'oscar'}`);
const child = spawn(process.execPath, conformanceArgs(mcpUrl, suiteArgs), { env: conformanceEnv(process.env, mcpUrl, token), stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
