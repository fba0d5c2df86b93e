// The SDK as another repository gets it: packed with npm pack, installed from the tarballs into a
// project outside this repository (no workspace link, no source condition), and the template of
// examples/tool-service followed as a newcomer follows its README, word for word: on the PATH a new
// machine has (its own Node first, whatever version; no TLS variable the README does not name),
// against npm start on moved ports, as an app of its own that npm run tool-env registers, its tool
// called through the MCP Inspector's command line as a seeded person; then the same service as
// plain JavaScript. Also: what the tarball holds, and that the API check catches an export added by accident.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGatewaySession, connectToGateway, personToken } from '../src/stack/platform-session.ts';
import { repoRoot } from '../src/repo-root.ts';
import { projectCopy, runNpm, stackEnvironment, stackSecrets, type CommandRun, type StackEnvironment } from './stack-process.ts';

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
 * What a new machine's shell carries: HOME (npm's cache included), the way to the registry, and the
 * machine's PATH with none of the repository's folders, so its own Node comes first (older than 24
 * on many machines: this one's is what a newcomer has); no NODE_OPTIONS, no TLS variable, so
 * nothing resolves the SDK's sources and only what the README says is set.
 */
function outsideEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const path = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '' && !folder.startsWith(repoRoot));
  const access = Object.fromEntries(registryAccess.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  return { PATH: path.join(delimiter), HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8', ...access, ...extra };
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
    run(process.execPath, [join(repoRoot, 'scripts/src/gates/api-report.ts'), '--package', folder], { timeout: 180_000 }).then(
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

/** The template's README with its lines joined, so a command wrapped across lines reads as one. */
const readme = readFileSync(join(repoRoot, 'examples/tool-service/README.md'), 'utf8');
const readmeText = readme.replace(/\s+/g, ' ');

/** The command the README gives in backticks that starts with `start`. */
function readmeCommand(start: string): string {
  const found = new RegExp(`\`(${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\`]*)\``).exec(readmeText)?.[1];
  if (found === undefined) throw new Error(`the template's README gives no command starting "${start}"`);
  return found;
}

/** A command line run as a person's shell runs it ($(...) and quotes included), in `cwd`; killed if its test fails first. */
async function shell(command: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const running = run('bash', ['-c', command], { cwd, env, timeout: 480_000 });
    killedIfTestFails(running.child);
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A started service's output so far, and a promise of the line `text`; rejects if it exits first. */
function watch(service: ChildProcess, text: string): { output: () => string; seen: Promise<void> } {
  let output = '';
  const seen = new Promise<void>((resolve, reject) => {
    for (const stream of [service.stdout, service.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(text)) resolve();
      });
    }
    service.once('exit', (code) => {
      reject(new Error(`the tool service exited (${String(code)}) before "${text}":\n${output}`));
    });
  });
  return { output: () => output, seen };
}

describe("the template's README, followed by a newcomer", () => {
  let stack: StackEnvironment;
  let platformRepository: string;
  let project: string;
  const person = outsideEnvironment();

  beforeAll(async () => {
    project = join(work, 'my-tools');
    cpSync(join(repoRoot, 'examples/tool-service'), project, { recursive: true, filter: (source) => !source.includes('node_modules') });
    // "npm install <repository>/platform-proto-2.1.0.tgz <repository>/platform-tool-sdk-2.1.0.tgz", where npm pack left them.
    const install = readmeCommand('npm install <repository>/').replaceAll('<repository>/', `${tarballs}/`);
    expect(
      install
        .split(' ')
        .slice(2)
        .map((file) => file.slice(tarballs.length + 1)),
    ).toEqual([packageOf('proto'), packageOf('shared')].map((p) => p.filename));
    const installed = await shell(`${install} --no-audit --no-fund`, project, person);
    expect(installed.code, installed.stderr).toBe(0);
    // The platform repository as a person has it, with data/ of its own; npm start there on moved ports.
    stack = await stackEnvironment();
    platformRepository = projectCopy(
      `${Object.entries(stackSecrets)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n')}\n`,
    );
    const firstTerminal = Object.fromEntries(Object.entries(stack.env).filter(([name]) => name !== 'WEBHOOK_DATA_DIR' && !(name in stackSecrets)));
    const start = runNpm(['start'], firstTerminal, platformRepository);
    running.push(start);
    await start.waitForLine('The stack is ready.', 180_000);
  }, 780_000);

  it('runs on the Node its package.json pins, whatever Node the machine has, and its npm test type-checks and passes', async () => {
    // The machine's own Node is the first on the PATH (v20 on this one), not one of the repository's.
    const machine = await shell('command -v node', project, person);
    expect(machine.stdout.trim()).not.toBe('');
    expect(machine.stdout.startsWith(repoRoot)).toBe(false);
    const pinned = await shell('npm exec -- node --version', project, person);
    expect(pinned.stdout.trim()).toMatch(/^v24\./);
    const tested = await shell('npm test', project, person);
    expect(tested.code, `${tested.stdout}${tested.stderr}`).toBe(0);
    expect(tested.stdout).toContain('> tsc && vitest run');
    expect(tested.stdout).toMatch(/Tests\s+.*4 passed/);
  }, 300_000);

  it('registers as an app of its own with what npm run tool-env gives it, and its tool answers through the Inspector CLI', async () => {
    // Step 2, in the platform repository: "npm run tool-env -- my-tools --out <this folder>/.env".
    const toolEnv = await shell(readmeCommand('npm run tool-env --').replace('<this folder>', project), platformRepository, person);
    expect(toolEnv.code, toolEnv.stderr).toBe(0);
    const dotEnv = join(project, '.env');
    expect(statSync(dotEnv).mode & 0o777).toBe(0o600);
    const variables = parseEnv(readFileSync(dotEnv, 'utf8'));
    expect(variables).toMatchObject({ APP_CLIENT_ID: 'my-tools', PLATFORM_API_BASE_URL: stack.platformUrl, GATEWAY_ADDRESS: stack.env.REGISTRY_ADDRESS });
    const mcpUrl = /^MCP URL: (\S+)/m.exec(toolEnv.stderr)?.[1];
    expect(mcpUrl).toBe(stack.mcpUrl);

    // Step 3, here: "npm start"; the machine's Node first on the PATH, nothing set but what the .env holds.
    // Killed with its group (npm and the service) if the test fails before its Ctrl-C below.
    const service = killedIfTestFails(spawn('npm', ['start'], { cwd: project, env: person, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
    const started = watch(service, 'registered at the gateway');
    // Closed once every process of the group that holds its output has ended: npm, and the service after it deregistered.
    const exited = once(service, 'close');
    try {
      await started.seen;
      // Step 4, in the platform repository: the README's Inspector command, with the MCP URL tool-env printed.
      const [command = ''] = /```sh\n([^`]+)\n\s*```/.exec(readme)?.slice(1) ?? [];
      expect(command).toContain('npx @modelcontextprotocol/inspector --cli <MCP URL>');
      const inspectorHome = mkdtempSync(join(tmpdir(), 'inspector-home-'));
      const called = await shell(command.trim().replace('<MCP URL>', mcpUrl ?? ''), platformRepository, {
        ...person,
        HOME: inspectorHome,
        MCP_AUTO_OPEN_ENABLED: 'false',
      });
      expect(called.code, `${called.stdout}${called.stderr}`).toBe(0);
      // Oscar may manage devices at company 2, but the app my-tools was consented only viewing there; no webhook-tools permission reaches it.
      const answer = JSON.parse(called.stdout) as { isError?: boolean; structuredContent?: unknown };
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual({ companyId: 2, permissions: ['device-overview:view'], mayManageDevices: false });
    } finally {
      // What a terminal's Ctrl-C does: SIGINT to the whole process group.
      // (Unless the whole group has ended already: a service that failed to start.)
      if (service.pid !== undefined && service.exitCode === null) process.kill(-service.pid, 'SIGINT');
      await exited;
    }
    expect(started.output()).toContain('deregistered from the gateway');
    const secret = variables.APP_CLIENT_SECRET ?? '';
    for (const said of [toolEnv.stdout, toolEnv.stderr, started.output()]) {
      expect(said).not.toContain(secret);
      for (const stackSecret of Object.values(stackSecrets)) expect(said).not.toContain(stackSecret);
    }
  }, 400_000);

  it('runs as plain JavaScript on Node 24 with no type stripping at all, from the same .env, and a seeded person sees its tool narrowed to its own app', async () => {
    // No type stripping: everything it loads, the SDK included, is JavaScript.
    const main = join(asJavaScript(project), 'main.js');
    const service = killedIfTestFails(
      spawn(process.execPath, ['--no-experimental-strip-types', main], { cwd: project, env: person, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const started = watch(service, 'registered at the gateway');
    const exited = once(service, 'exit');
    try {
      await started.seen;
      const { accessToken } = await personToken(stack.platformUrl, 'oscar', stack.mcpUrl);
      const client = await connectToGateway(stack.mcpUrl, accessToken, 'tool-sdk-package-test');
      try {
        // Oscar may view and manage devices at companies 1 and 2; the app was consented both at 1, only viewing at 2.
        const atOne = await client.callTool({ name: 'my-tools__my_permissions', arguments: { companyId: 1 } });
        expect(atOne.structuredContent).toEqual({ companyId: 1, permissions: ['device-overview:manage', 'device-overview:view'], mayManageDevices: true });
        // Company 3 never installed the app: the declared permission is refused there, whatever the person's roles.
        const atThree = await client.callTool({ name: 'my-tools__my_permissions', arguments: { companyId: 3 } });
        expect(atThree.isError).toBe(true);
      } finally {
        await closeGatewaySession(client);
      }
    } finally {
      service.kill('SIGTERM');
      await exited;
    }
    expect(started.output()).toContain('deregistered from the gateway');
  }, 180_000);
});
