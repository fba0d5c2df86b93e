// The SDK as another repository gets it: packed with npm pack, installed from the tarballs into a
// project outside this repository (no workspace link, no source condition), the template of
// examples/tool-service run there with plain Node 24 (as JavaScript, then from its own TypeScript)
// against a stack started with npm start, and called through the MCP gateway as a seeded person.
// Also: what the tarball holds, and that the API check catches an export added by accident.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGatewaySession, connectToGateway, personToken } from '../src/platform-session.ts';
import { existingStackCertificates } from '../src/stack-certificates.ts';
import { grpcTlsEnv, repoRoot } from '../src/stack.ts';
import { runNpm, stackEnvironment, stackSecrets, type CommandRun, type StackEnvironment } from './stack-process.ts';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'tool-sdk-package-'));
const tarballs = join(work, 'tarballs');

interface PackedFile {
  readonly path: string;
}
interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly PackedFile[];
}

/** How the machine reaches the npm registry: the CAs it trusts and its proxies, as a person's shell has them. */
const registryAccess = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
];

/**
 * What a person's shell outside the repository carries: HOME (npm's cache included), the way to
 * the registry, and a PATH with Node 24 and the system's programs but none of the repository's
 * folders; no NODE_OPTIONS, so nothing resolves the SDK's sources.
 */
function outsideEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const path = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '' && !folder.startsWith(repoRoot));
  const access = Object.fromEntries(registryAccess.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  return { PATH: [dirname(process.execPath), ...path].join(delimiter), HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8', ...access, ...extra };
}

let packed: Packed[] = [];
beforeAll(async () => {
  // One build, then the tarballs without their prepack (which would build again).
  mkdirSync(tarballs);
  await run('npm', ['run', 'build'], { cwd: repoRoot, timeout: 240_000 });
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tarballs, '-w', 'proto', '-w', 'shared'], {
    cwd: repoRoot,
    timeout: 120_000,
  });
  packed = JSON.parse(stdout) as Packed[];
}, 400_000);

const running: CommandRun[] = [];
afterAll(async () => {
  for (const command of running) command.interrupt();
  await Promise.all(running.map((command) => command.exited));
  rmSync(work, { recursive: true, force: true });
});

/** The tarball npm pack made of the workspace in `folder` (its name is the folder's package.json's). */
function packageOf(folder: 'proto' | 'shared'): Packed {
  const { name } = JSON.parse(readFileSync(join(repoRoot, folder, 'package.json'), 'utf8')) as { name: string };
  const found = packed.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`npm pack made no tarball of ${name}`);
  return found;
}

describe('the packed SDK', () => {
  it('holds dist/ with JavaScript, declarations and source maps for every export, and no sources or tests', () => {
    const sdk = packageOf('shared').files.map((file) => file.path);
    expect(sdk).toEqual(expect.arrayContaining(['package.json', 'CHANGELOG.md']));
    for (const entry of ['dist/index', 'dist/tools/index', 'dist/testing/index']) {
      expect(sdk).toEqual(expect.arrayContaining([`${entry}.js`, `${entry}.d.ts`, `${entry}.js.map`]));
    }
    expect(sdk.filter((path) => !path.startsWith('dist/') && !['package.json', 'CHANGELOG.md'].includes(path))).toEqual([]);
    expect(sdk.filter((path) => /\.test\.|(^|\/)test\/|\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
    const proto = packageOf('proto').files.map((file) => file.path);
    expect(proto).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'platform/tools/v1/tool_service.proto', 'platform/registry/v1/tool_registry.proto']),
    );
    expect(proto.filter((path) => /\.test\./.test(path))).toEqual([]);
  });
});

describe('npm run api:check', () => {
  /** A copy of the built package for the check to read: its manifest, configuration, reports and dist/. */
  function packageCopy(): string {
    const copy = mkdtempSync(join(work, 'api-'));
    for (const part of ['package.json', 'api-extractor.json', 'etc', 'dist']) cpSync(join(repoRoot, 'shared', part), join(copy, part), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
    return copy;
  }
  const check = (folder: string) =>
    run(process.execPath, [join(repoRoot, 'scripts/src/api-report.ts'), '--package', folder], { timeout: 180_000 }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: unknown) => {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
      },
    );

  it('passes on the built package and fails, naming it, on an export added by accident', async () => {
    const unchanged = await check(packageCopy());
    expect(unchanged, unchanged.output).toMatchObject({ code: 0 });

    const changed = packageCopy();
    appendFileSync(join(changed, 'dist/index.d.ts'), 'export declare const addedByAccident: number;\n');
    const failed = await check(changed);
    expect(failed.code).toBe(1);
    expect(failed.output).toContain('+ export const addedByAccident: number;');
    expect(failed.output).toContain("api:check: the SDK's public API changed (etc/tool-sdk.api.md;");
  }, 400_000);
});

/** A free loopback port for the tool service. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The template's sources as plain JavaScript (types stripped, `.ts` specifiers to `.js`): a service with no TypeScript at all. */
function asJavaScript(project: string): string {
  const out = join(project, 'js');
  mkdirSync(out);
  for (const file of readdirSync(join(project, 'src'))) {
    const source = readFileSync(join(project, 'src', file), 'utf8');
    const code = stripTypeScriptTypes(source).replace(/(from '\.{1,2}\/[^']+)\.ts'/g, "$1.js'");
    writeFileSync(join(out, file.replace(/\.ts$/, '.js')), code);
  }
  return out;
}

describe('a tool service in another repository, on the installed SDK', () => {
  let stack: StackEnvironment;
  let project: string;

  beforeAll(async () => {
    project = join(work, 'tool-service');
    cpSync(join(repoRoot, 'examples/tool-service'), project, { recursive: true, filter: (source) => !source.includes('node_modules') });
    const files = [packageOf('proto'), packageOf('shared')].map((tarball) => join(tarballs, tarball.filename));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], { cwd: project, env: outsideEnvironment(), timeout: 480_000 });
    stack = await stackEnvironment();
    const start = runNpm(['start'], stack.env);
    running.push(start);
    await start.waitForLine('The stack is ready.', 180_000);
  }, 780_000);

  it("passes its own tests there (Vitest, on the SDK's ./testing from dist/)", async () => {
    const { stdout } = await run('npm', ['test'], { cwd: project, env: outsideEnvironment(), timeout: 180_000 });
    expect(stdout).toMatch(/Tests\s+.*4 passed/);
  }, 200_000);

  for (const form of ['JavaScript', 'TypeScript'] as const) {
    it(`runs with plain Node 24 from its ${form}, registers at the gateway, and its tool sees a seeded person's permissions narrowed to the app's`, async () => {
      const serviceName = `example-tools-${form.toLowerCase()}`;
      const main = form === 'JavaScript' ? join(asJavaScript(project), 'main.js') : join(project, 'src/main.ts');
      // No type stripping at all for the JavaScript form: everything it loads, the SDK included, is JavaScript.
      const flags = form === 'JavaScript' ? ['--no-experimental-strip-types'] : [];
      const service = spawn(process.execPath, [...flags, main], {
        cwd: project,
        env: outsideEnvironment({
          PLATFORM_API_BASE_URL: stack.platformUrl,
          PLATFORM_AI_BASE_URL: `http://127.0.0.1:${stack.env.PLATFORM_AI_PORT ?? ''}`,
          GATEWAY_ADDRESS: stack.env.REGISTRY_ADDRESS ?? '',
          APP_CLIENT_ID: 'webhook-tools',
          APP_CLIENT_SECRET: stackSecrets.WEBHOOK_TOOLS_CLIENT_SECRET ?? '',
          SERVICE_NAME: serviceName,
          CALLBACK_ADDRESS: `127.0.0.1:${await freePort()}`,
          // npm start's gateway takes tool services over mutual TLS: the development certificate it issued.
          ...grpcTlsEnv(existingStackCertificates(stack.env), 'tool-service'),
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const registered = new Promise<void>((resolve, reject) => {
        for (const stream of [service.stdout, service.stderr]) {
          stream.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes('registered at the gateway')) resolve();
          });
        }
        service.once('exit', (code) => {
          reject(new Error(`the tool service exited (${String(code)}) before it registered:\n${output}`));
        });
      });
      const exited = once(service, 'exit');
      try {
        await registered;
        const { accessToken } = await personToken(stack.platformUrl, 'oscar', stack.mcpUrl);
        const client = await connectToGateway(stack.mcpUrl, accessToken, 'tool-sdk-package-test');
        try {
          // Oscar may view and manage devices at companies 1 and 2; the app was consented both at 1, only viewing at 2.
          const atOne = await client.callTool({ name: 'my_permissions', arguments: { companyId: 1 } });
          expect(atOne.structuredContent).toEqual({
            companyId: 1,
            permissions: ['device-overview:manage', 'device-overview:view', 'webhook-tools:use'],
            mayManageDevices: true,
          });
          const atTwo = await client.callTool({ name: 'my_permissions', arguments: { companyId: 2 } });
          expect(atTwo.structuredContent).toEqual({ companyId: 2, permissions: ['device-overview:view', 'webhook-tools:use'], mayManageDevices: false });
          // Company 3 never installed the app: the declared permission is refused there, whatever the person's roles.
          const atThree = await client.callTool({ name: 'my_permissions', arguments: { companyId: 3 } });
          expect(atThree.isError).toBe(true);
        } finally {
          await closeGatewaySession(client);
        }
      } finally {
        service.kill('SIGTERM');
        await exited;
      }
      expect(output).toContain('deregistered from the gateway');
      for (const secret of Object.values(stackSecrets)) expect(output).not.toContain(secret);
    }, 180_000);
  }
});
