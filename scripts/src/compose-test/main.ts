// `npm run test:compose`: docker-compose.yml run for real. Builds the images without a registry
// (compose-images.ts), starts the stack as shipped with generated secrets, waits for every health
// check, runs `npm run demo` against the published ports, checks the deliverers delivered, stops one
// deliverer and sees a reading delivered through the other, then takes everything down (containers,
// network, volume, the images it built unless --keep-images or COMPOSE_TEST_KEEP_IMAGES=true; the
// base images stay as tar files in COMPOSE_TEST_CACHE). Starts dockerd when none runs, and stops it.
// On a machine that cannot run containers it says why in one line and exits 0, unless --require or
// COMPOSE_TEST_REQUIRED=true. Ends with one plain line, `N passed, N failed`, as `npm test` does.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { buildImages, type BuiltImages } from './compose-images.ts';
import { composeStack, deliveredBy, generatedSecrets, networkGateway, waitHealthy, type ComposeStack } from './compose-stack.ts';
import { ensureDaemon, missingForContainers, run, type ContainerDaemon } from './container-engine.ts';
import { deliverOneReading } from './delivery-failover.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const print = (line: string) => process.stdout.write(`${line}\n`);
const say = (line: string) => print(`compose test: ${line}`);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const { values: flags } = parseArgs({ options: { 'keep-images': { type: 'boolean', default: false }, require: { type: 'boolean', default: false } } });
const required = flags.require || process.env.COMPOSE_TEST_REQUIRED === 'true';
const keepImages = flags['keep-images'] || process.env.COMPOSE_TEST_KEEP_IMAGES === 'true';

const missing = missingForContainers();
if (missing) {
  print(`compose test ${required ? 'failed' : 'skipped'}: ${missing}`);
  process.exit(required ? 1 : 0);
}

// As docker-compose.yml places them: the published ports, and the deliverers' own (not published).
const platformUrl = 'http://127.0.0.1:4000';
const mcpUrl = 'http://127.0.0.1:3000/mcp';
const webhookApiUrl = 'http://127.0.0.1:4100';
const delivererPorts = { 'webhook-deliverer-1': 4101, 'webhook-deliverer-2': 4103 } as const;
const containerCount = 8;
const receiverPort = Number(process.env.DEMO_RECEIVER_PORT || 4900);

const started = Date.now();
const logDir = join(repoRoot, 'data/compose-test');
mkdirSync(logDir, { recursive: true, mode: 0o700 });
const workDir = mkdtempSync(join(tmpdir(), 'compose-test-'));
const cacheDir = process.env.COMPOSE_TEST_CACHE || join(logDir, 'cache');
const project = `compose-test-${randomBytes(3).toString('hex')}`;
const secrets = generatedSecrets();

let daemon: ContainerDaemon | undefined;
let images: BuiltImages | undefined;
let stack: ComposeStack | undefined;
const results: { name: string; ok: boolean }[] = [];
const figures: string[] = [];

/** Runs one check unless one before it failed; its line says what it saw, or why it failed. */
async function check(name: string, body: () => Promise<string>): Promise<void> {
  if (results.some((result) => !result.ok)) {
    results.push({ name, ok: false });
    say(`not run (an earlier check failed): ${name}`);
    return;
  }
  const since = Date.now();
  try {
    const seen = await body();
    results.push({ name, ok: true });
    say(`passed (${seconds(since)}): ${name}: ${seen}`);
  } catch (error) {
    results.push({ name, ok: false });
    say(`FAILED (${seconds(since)}): ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** npm run demo against the published ports, its lines shown indented; rejects when it exits non-zero. */
async function runDemo(receiverHost: string): Promise<void> {
  const env = {
    ...process.env,
    // A placing variable set: the demo takes these addresses, not a data/stack.json of `npm start`.
    PLATFORM_PORT: '4000',
    WEBHOOK_INGEST_TOKEN: secrets.WEBHOOK_INGEST_TOKEN,
    DEMO_RECEIVER_HOST: receiverHost,
    DEMO_RECEIVER_PORT: String(receiverPort),
  };
  const demo = spawn(process.execPath, [sourceCondition, join(repoRoot, 'scripts/src/demo/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [demo.stdout, demo.stderr]) createInterface({ input: stream }).on('line', (line) => print(`  demo | ${line}`));
  const [code] = (await once(demo, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`npm run demo exited ${String(code)}`);
}

let tornDown: Promise<void> | undefined;
/** Containers, network, volume, this run's images (unless kept), the daemon it started, its files. */
function tearDown(): Promise<void> {
  tornDown ??= (async () => {
    if (stack) {
      // A failed run keeps what the services said, for the reader of its FAILED line.
      if (results.some((result) => !result.ok)) {
        const logs = await stack.compose(['logs', '--no-color', '--tail', '200'], true);
        writeFileSync(join(logDir, 'compose.log'), `${logs.stdout}${logs.stderr}`, { mode: 0o600 });
        say(`the services' logs: ${join(logDir, 'compose.log')}`);
      }
      await stack.compose(['down', '--volumes', '--remove-orphans', '--timeout', '20'], true);
      const left = await run('sh', [
        '-c',
        `docker ps -aq --filter label=com.docker.compose.project=${project}; docker volume ls -q --filter label=com.docker.compose.project=${project}; docker network ls -q --filter label=com.docker.compose.project=${project}`,
      ]);
      const ok = left.stdout.trim() === '';
      results.push({ name: 'docker-compose down leaves no container, volume or network', ok });
      say(
        `${ok ? 'passed' : 'FAILED'}: docker-compose down leaves no container, volume or network${ok ? '' : `: left ${left.stdout.trim().split('\n').join(', ')}`}`,
      );
    }
    if (images && !keepImages) await run('docker', ['image', 'rm', ...images.made], { allowFailure: true });
    await daemon?.stop();
    rmSync(workDir, { recursive: true, force: true });
  })();
  return tornDown;
}

process.once('SIGINT', () => {
  say('interrupted: taking the stack down');
  void tearDown().finally(() => process.exit(130));
});

try {
  await check('the container daemon answers', async () => {
    daemon = await ensureDaemon(join(logDir, 'dockerd.log'));
    return daemon.started ? `started dockerd (its log: ${join(logDir, 'dockerd.log')}; stopped at the end)` : 'the running daemon';
  });
  await check('the images build without a registry', async () => {
    const since = Date.now();
    images = await buildImages({ repoRoot, cacheDir, workDir, stackTag: `compose-test/device-telemetry-stack:${project}`, say });
    figures.push(`images ${seconds(since)}`);
    return `${images.node}, ${images.postgres}, ${images.stack}`;
  });
  await check('docker-compose.yml starts and every health check passes', async () => {
    const built = images as BuiltImages;
    stack = composeStack({
      repoRoot,
      project,
      workDir,
      variables: {
        ...secrets,
        STACK_IMAGE: built.stack,
        POSTGRES_IMAGE: built.postgres,
        // The receivers are on this machine's side of the stack's network: a private address.
        NODE_ENV: 'development',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    const since = Date.now();
    await stack.compose(['up', '--detach', '--no-build']);
    await waitHealthy(stack, containerCount, 240_000, ['certificates']);
    figures.push(`healthy ${seconds(since)} after up`);
    return `${containerCount} containers healthy`;
  });
  let receiverHost = '';
  await check('npm run demo passes every step against the published ports', async () => {
    receiverHost = await networkGateway(project);
    const since = Date.now();
    await runDemo(receiverHost);
    figures.push(`demo ${seconds(since)}`);
    return `the receiver listened on ${receiverHost}:${receiverPort}, the stack's network gateway`;
  });
  const delivered = async (service: keyof typeof delivererPorts) => deliveredBy(await (stack as ComposeStack).containerOf(service), delivererPorts[service]);
  await check('the deliverers delivered the demo readings (their /metrics)', async () => {
    const first = await delivered('webhook-deliverer-1');
    const second = await delivered('webhook-deliverer-2');
    if (first + second < 3) throw new Error(`webhook_deliveries_total{outcome="delivered"} is ${first} and ${second}: fewer than the demo's 3`);
    return `webhook_deliveries_total{outcome="delivered"}: ${first} by webhook-deliverer-1, ${second} by webhook-deliverer-2`;
  });
  await check('with webhook-deliverer-1 stopped, a reading is delivered through webhook-deliverer-2', async () => {
    const before = await delivered('webhook-deliverer-2');
    await (stack as ComposeStack).compose(['stop', 'webhook-deliverer-1']);
    const seen = await deliverOneReading({
      platformUrl,
      mcpUrl,
      webhookApiUrl,
      ingestToken: secrets.WEBHOOK_INGEST_TOKEN,
      receiverHost,
      receiverPort,
      timeoutMs: 30_000,
    });
    const after = await delivered('webhook-deliverer-2');
    if (after <= before) throw new Error(`${seen}, but webhook-deliverer-2 counted ${before} delivered before and ${after} after`);
    return `${seen}; webhook-deliverer-2 counted ${after - before} more`;
  });
} finally {
  await tearDown();
}
figures.push(`total ${seconds(started)}`);
say(`figures: ${figures.join(', ')}`);
const failed = results.filter((result) => !result.ok).length;
print(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
