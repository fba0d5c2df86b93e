// docker-compose.yml as shipped, run under a project name of the test's own with its generated
// secrets: started, waited on until every health check passes, asked what its deliverers counted,
// and taken down with its network and volumes.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from './container-engine.ts';

/** The secrets docker-compose.yml requires, generated as its header says. */
export function generatedSecrets() {
  const hex = () => randomBytes(24).toString('hex');
  return {
    WEBHOOK_TOOLS_CLIENT_SECRET: hex(),
    FLEET_INSIGHTS_CLIENT_SECRET: hex(),
    LEGACY_SYNC_CLIENT_SECRET: hex(),
    MCP_GATEWAY_CLIENT_SECRET: hex(),
    DEV_API_TOKEN_OSCAR: hex(),
    WEBHOOK_INGEST_TOKEN: hex(),
    WEBHOOK_METRICS_TOKEN: hex(),
    POSTGRES_PASSWORD: hex(),
    WEBHOOK_ENCRYPTION_KEY: `compose-test:${randomBytes(32).toString('base64')}`,
  };
}

export interface ComposeStack {
  /** docker-compose with this stack's project, file and environment file. */
  compose(args: readonly string[], allowFailure?: boolean): ReturnType<typeof run>;
  /** The container of a service (empty when it has none). */
  containerOf(service: string): Promise<string>;
}

export function composeStack(options: { repoRoot: string; project: string; workDir: string; variables: Readonly<Record<string, string>> }): ComposeStack {
  const envFile = join(options.workDir, 'compose.env');
  writeFileSync(
    envFile,
    `${Object.entries(options.variables)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  const base = ['--project-name', options.project, '--env-file', envFile, '--file', join(options.repoRoot, 'docker-compose.yml')];
  const compose = (args: readonly string[], allowFailure = false) => run('docker-compose', [...base, ...args], { cwd: options.repoRoot, allowFailure });
  return {
    compose,
    async containerOf(service) {
      return (await compose(['ps', '--quiet', service])).stdout.trim();
    },
  };
}

interface ContainerState {
  readonly name: string;
  readonly status: string;
  readonly health: string;
}

async function states(stack: ComposeStack): Promise<ContainerState[]> {
  const ids = (await stack.compose(['ps', '--quiet'])).stdout.split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const format = '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}';
  const answer = await run('docker', ['inspect', '--format', format, ...ids]);
  return answer.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name = '', status = '', health = ''] = line.split(' ');
      return { name: name.replace(/^\//, ''), status, health };
    });
}

/** Resolves once all `count` containers are running and healthy; rejects naming the ones that are not, after `timeoutMs`. */
export async function waitHealthy(stack: ComposeStack, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await states(stack);
    const waiting = seen.filter((state) => state.status !== 'running' || state.health !== 'healthy');
    if (seen.length === count && waiting.length === 0) return;
    const exited = seen.filter((state) => state.status === 'exited' || state.health === 'unhealthy');
    if (exited.length > 0 || Date.now() > deadline) {
      const named = (exited.length > 0 ? exited : waiting).map((state) => `${state.name} ${state.status}/${state.health}`);
      throw new Error(`not healthy: ${named.join(', ') || `${seen.length} of ${count} containers`}`);
    }
    await sleep(1_000); // docker reports health only when asked
  }
}

/** The address of this machine on the stack's network, where its containers reach a receiver on the host. */
export async function networkGateway(project: string): Promise<string> {
  const networks = (await run('docker', ['network', 'ls', '--quiet', '--filter', `label=com.docker.compose.project=${project}`])).stdout
    .split('\n')
    .filter(Boolean);
  const [network] = networks;
  if (!network) throw new Error(`no network of the project ${project}`);
  const gateway = (await run('docker', ['network', 'inspect', '--format', '{{range .IPAM.Config}}{{.Gateway}} {{end}}', network])).stdout.trim().split(' ')[0];
  if (!gateway) throw new Error(`the network ${network} has no gateway address`);
  return gateway;
}

/**
 * webhook_deliveries_total{outcome="delivered"} of a deliverer, from its /metrics asked inside its
 * container (its health and metrics port is not published) with the metrics token it runs with.
 */
export async function deliveredBy(container: string, port: number): Promise<number> {
  const script = `fetch('http://127.0.0.1:${port}/metrics', { headers: { authorization: 'Bearer ' + process.env.WEBHOOK_METRICS_TOKEN } })
    .then(async (r) => { if (!r.ok) throw new Error('HTTP ' + r.status); process.stdout.write(await r.text()); })
    .catch((e) => { process.stderr.write(String(e)); process.exit(1); })`;
  const metrics = (await run('docker', ['exec', container, 'node', '-e', script])).stdout;
  const line = metrics.split('\n').find((l) => l.startsWith('webhook_deliveries_total{') && l.includes('outcome="delivered"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
