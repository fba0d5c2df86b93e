// `npm run tool-env -- <name> --out <file>`: what a tool service outside the repository needs from
// the running stack, in one .env its template reads: the stack's addresses (data/stack.json, whatever
// its ports), a certificate of npm start's development CA issued for <name>, and an app of its own
// registered on the dev platform (its key, a new client secret, installations, the tool-publisher
// mark), so it never borrows webhook-tools' identity. Nothing secret is printed; the secret goes only
// into the file asked for (mode 0600).
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { relative, resolve } from 'node:path';
import { issueServiceCertificate, NoDevCaError, type ServiceCertificateFiles } from '@platform/devtools/dev-certificates';
import { stackTlsFolder } from '../stack/certificates.ts';
import { locateStack, type LocatedStack } from '../stack/locator.ts';
import { parseToolEnvArguments, toolEnvUsage, UsageError, writeEnvFile, type ToolEnvRequest } from './tool-env.ts';

function fail(message: string, code = 1): never {
  console.error(`npm run tool-env: ${message}`);
  process.exit(code);
}

let request: ToolEnvRequest;
let stack: LocatedStack;
try {
  request = parseToolEnvArguments(process.argv.slice(2));
  stack = locateStack(process.env);
} catch (error) {
  if (error instanceof UsageError) fail(`${error.message}\n${toolEnvUsage}`, 2);
  throw error;
}
// npm runs scripts in the repository; a relative --out is where the person ran the command.
const out = resolve(process.env.INIT_CWD ?? process.cwd(), request.out);
const at = stack.addresses;

const reachable = await fetch(`${at.platformUrl}/health`, { signal: AbortSignal.timeout(5_000) }).then(
  (response) => response.ok,
  () => false,
);
if (!reachable) fail(`no stack is running (${stack.unreachable}): start it with npm start, then run this again`);
console.error(stack.found);

// The certificate first: when the CA cannot issue one, no app is registered (or given a new secret) for nothing.
let certificate: ServiceCertificateFiles;
try {
  certificate = await issueServiceCertificate(stackTlsFolder(process.env), request.name);
} catch (error) {
  if (!(error instanceof NoDevCaError)) throw error;
  fail(`${error.message}: npm start issues the development CA; stop it and start it again (a CA issued before tool-env existed kept no key)`);
}

const response = await fetch(`${at.platformUrl}/dev/apps/${request.name}`, {
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ installations: request.installations, permissions: request.permissions, toolPublisher: true }),
  signal: AbortSignal.timeout(10_000),
});
const answer = (await response.json().catch(() => ({}))) as { clientSecret?: string; message?: string };
const secret = answer.clientSecret;
if (!response.ok || typeof secret !== 'string') {
  fail(`the dev platform did not register the app ${request.name} (${response.status}: ${answer.message ?? 'no message'})`);
}
const variables = {
  APP_CLIENT_ID: request.name,
  APP_CLIENT_SECRET: secret,
  SERVICE_NAME: request.name,
  PLATFORM_API_BASE_URL: at.platformUrl,
  PLATFORM_AI_BASE_URL: at.aiUrl,
  GATEWAY_ADDRESS: at.registryAddress,
  // Port 0: the service takes a free port and registers that.
  CALLBACK_ADDRESS: '127.0.0.1:0',
  // npm start's gateway takes tool services over mutual TLS, with certificates of its development CA.
  GRPC_TLS_CA_FILE: certificate.caFile,
  GRPC_TLS_CERT_FILE: certificate.certFile,
  GRPC_TLS_KEY_FILE: certificate.keyFile,
  GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
};
writeEnvFile(out, variables, `for the tool service ${request.name}, against the stack at ${at.platformUrl}`);

const shown = (file: string) => (relative(process.cwd(), file).startsWith('..') ? file : relative(process.cwd(), file));
const installed = request.installations.map((i) => `company ${i.companyId} (${i.consentedPermissions.join(', ') || 'nothing consented'})`).join(', ');
console.error(
  [
    `registered the app ${request.name} on the dev platform (${response.status === 201 ? 'new' : 'registered again, with a new secret'}): a tool publisher, installed at ${installed}`,
    `MCP URL: ${at.mcpUrl} (agents there see its tools as ${request.name}__<tool>)`,
    `issued a certificate of the development CA for ${request.name}: ${shown(certificate.certFile)}`,
    `wrote ${out} (mode 0600; it holds the app's client secret: never commit it): ${Object.keys(variables).join(', ')}`,
    `next: npm start in the tool service's folder; it reads the .env`,
  ].join('\n'),
);
