// `npm run token -- <username> [--api]`: prints a seeded person's token from the running dev
// platform, for the MCP gateway (default) or, with --api, for the platform and webhook REST API.
// Only the token goes to stdout, so `$(npm run -s token -- oscar)` can be used in a command.
import { parseArgs } from 'node:util';
import { personToken } from './platform-session.ts';
import { stackAddresses } from './stack.ts';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { api: { type: 'boolean', default: false } } });
const [username] = positionals;
if (!username || positionals.length > 1) {
  console.error('usage: npm run token -- <username> [--api]   (the seeded people: oscar, vera, olivia, bjorn)');
  process.exit(2);
}
const at = stackAddresses(process.env, 'embedded');
try {
  const { accessToken } = await personToken(at.platformUrl, username, values.api ? undefined : at.mcpUrl);
  process.stdout.write(`${accessToken}\n`);
} catch (error) {
  const reason = error instanceof TypeError ? `the dev platform at ${at.platformUrl} does not answer (is npm start running?)` : (error as Error).message;
  console.error(`no token: ${reason}`);
  process.exit(1);
}
