// `npm run example -- <name>`: runs examples/<name>.ts against the running stack, found as the demo
// finds it (data/stack.json, whatever its ports), with what the example needs and the banner does
// not print: the platform's address, the gateway's registry, the webhook-tools app's generated
// secret, and a free callback port. A variable already set wins; nothing secret is printed.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { devSecretsFile, readDevSecrets } from '@platform/devtools/dev-secrets';
import { existingStackCertificates } from '../stack/certificates.ts';
import { grpcTlsEnv } from '../stack/processes.ts';
import { repoRoot } from '../repo-root.ts';
import { locateStack } from '../stack/locator.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const usage = 'usage: npm run example -- <name>   (an example of examples/, e.g. hello-tools)';
const [name, ...rest] = process.argv.slice(2);
const script = name === undefined || !/^[a-z0-9-]+$/.test(name) ? undefined : join(repoRoot, 'examples', `${name}.ts`);
if (!script || rest.length > 0 || !existsSync(script)) {
  console.error(usage);
  process.exit(2);
}

/** A port nothing listens on now, for the example's gRPC server. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let stack;
try {
  stack = locateStack(process.env);
} catch (error) {
  console.error(`npm run example: ${(error as Error).message}`);
  process.exit(2);
}
const reachable = await fetch(`${stack.addresses.platformUrl}/health`, { signal: AbortSignal.timeout(5_000) }).then(
  (response) => response.ok,
  () => false,
);
if (!reachable) {
  console.error(`npm run example: the stack is not running (${stack.unreachable}): start it with npm start`);
  process.exit(1);
}
// The secret npm start gave the tool service: from the environment (.env included), or the file npm start generated.
const secret = process.env.WEBHOOK_TOOLS_CLIENT_SECRET || readDevSecrets(devSecretsFile(repoRoot)).WEBHOOK_TOOLS_CLIENT_SECRET;
const given = (variable: string, value: string | undefined) => (process.env[variable] ? {} : value === undefined ? {} : { [variable]: value });
// The gateway npm start runs takes tool services over mutual TLS: the example shows the tool
// service's development certificate, unless the environment names certificates of its own.
const certificates = existingStackCertificates(process.env);
const tls = process.env.GRPC_TLS_CA_FILE || !existsSync(certificates.caFile) ? {} : grpcTlsEnv(certificates, 'tool-service');
const env = {
  ...process.env,
  ...given('PLATFORM_API_BASE_URL', stack.addresses.platformUrl),
  ...given('PLATFORM_AI_BASE_URL', stack.addresses.aiUrl),
  ...given('GATEWAY_ADDRESS', stack.addresses.registryAddress),
  ...given('APP_CLIENT_ID', 'webhook-tools'),
  ...given('APP_CLIENT_SECRET', secret),
  ...given('SERVICE_NAME', name),
  ...given('CALLBACK_ADDRESS', `127.0.0.1:${await freePort()}`),
  ...tls,
};
console.error(`${stack.found}; running examples/${name}.ts as the app webhook-tools, serving on ${env.CALLBACK_ADDRESS ?? ''} (Ctrl-C stops it)`);
// A process group of its own, so a Ctrl-C reaches it once, from here: the terminal signals the whole
// foreground group, and a second signal makes a service stop at once, without deregistering. The
// IPC channel stops it in order should this process die first.
const child = spawn(process.execPath, [sourceCondition, script], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
