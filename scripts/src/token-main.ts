// `npm run token -- <username> [--api]`: prints a seeded person's token from the running dev
// platform, for the MCP gateway (default) or, with --api, for the platform and webhook REST API.
// Only the token goes to stdout, so `$(npm run -s token -- oscar)` can be used in a command.
import './dot-env.ts'; // first: .env is in process.env before any module reads it
import { parseArgs } from 'node:util';
import { personToken } from './platform-session.ts';
import { stackAddresses } from './stack.ts';

const usage = 'usage: npm run token -- <username> [--api]   (the seeded people: oscar, vera, olivia, bjorn)';
let parsed;
let at;
try {
  parsed = parseArgs({ allowPositionals: true, options: { api: { type: 'boolean', default: false } } });
  at = stackAddresses(process.env, 'embedded');
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
try {
  const { accessToken } = await personToken(at.platformUrl, username, values.api ? undefined : at.mcpUrl);
  process.stdout.write(`${accessToken}\n`);
} catch (error) {
  const unreachable = error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError');
  const reason = unreachable ? `the dev platform at ${at.platformUrl} does not answer (is npm start running?)` : (error as Error).message;
  console.error(`no token: ${reason}`);
  process.exit(1);
}
