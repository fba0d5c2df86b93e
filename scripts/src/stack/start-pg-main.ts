// `npm run start:pg`: the scaled topology as local processes: the dev platform, two webhook-api
// processes that only take requests and queue (WEBHOOK_RUN_DELIVERER=false), two deliverers, two
// gateway replicas behind HAProxy and the tool service, all sharing one PostgreSQL: DATABASE_URL when it is set, otherwise
// a cluster of the repository's own under data/postgres on 127.0.0.1:$STACK_POSTGRES_PORT (5433), which takes
// passwords only (generated into data/dev-secrets.env) and where the gateway and the webhook API each connect as
// a role that owns its own schema and can read nothing of the other's.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { devSecretsFile, loadDevSecrets, secretNamesOf } from '@platform/devtools/dev-secrets';
import { localPostgresSecretNames, startLocalPostgres, type LocalPostgres } from '@platform/devtools/local-postgres';
import { loadLocalPostgresPort } from './settings.ts';
import { defaultSeedPath } from './banner.ts';
import { runStackFromCommandLine } from './command.ts';
import { serviceSecretNames, type Environment } from './processes.ts';
import { repoRoot } from '../repo-root.ts';

const given: Environment = process.env;
const seedPath = given.PLATFORM_SEED ?? defaultSeedPath;
const secretsFile = devSecretsFile(repoRoot);
const secrets = loadDevSecrets([...secretNamesOf(seedPath), ...serviceSecretNames], secretsFile, given);

// HAProxy balances the two gateways: without it, say how to get it before anything starts.
const haproxyMissing = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).error;
if (haproxyMissing && 'code' in haproxyMissing && haproxyMissing.code === 'ENOENT') {
  process.stderr.write(
    'start:pg cannot start: it runs two gateways behind HAProxy, which is not installed (Debian, Ubuntu: sudo apt-get install haproxy; macOS: brew install haproxy); npm start runs one gateway without it\n',
  );
  process.exit(1);
}

let cluster: LocalPostgres | undefined;
let databaseUrl = given.DATABASE_URL;
let gatewayDatabaseUrl = given.MCP_DATABASE_URL;
if (!databaseUrl) {
  const names = localPostgresSecretNames;
  const stored = loadDevSecrets(Object.values(names), secretsFile, given);
  const password = (name: string) => stored[name] ?? '';
  try {
    cluster = startLocalPostgres(join(repoRoot, 'data/postgres'), loadLocalPostgresPort(given), 'webhooks', {
      superuser: password(names.superuser),
      gateway: password(names.gateway),
      webhook: password(names.webhook),
    });
  } catch (error) {
    process.stderr.write(
      `start:pg cannot start PostgreSQL: ${(error as Error).message} (set DATABASE_URL to use a running server, or STACK_POSTGRES_PORT to move this one)\n`,
    );
    process.exit(1);
  }
  databaseUrl = cluster.webhookUrl;
  gatewayDatabaseUrl = cluster.gatewayUrl;
  process.stdout.write(
    `PostgreSQL: ${cluster.shownUrl} (data/postgres, passwords in data/dev-secrets.env; the webhook API as webhook_api, the gateways as mcp_gateway; stopped with the stack)\n`,
  );
}

await runStackFromCommandLine({
  label: 'start:pg',
  topology: 'postgres',
  env: { ...given, DATABASE_URL: databaseUrl, ...(gatewayDatabaseUrl && { MCP_DATABASE_URL: gatewayDatabaseUrl }) },
  secrets,
  seedPath,
  secretsFile,
  afterStop: () => cluster?.stop(),
});
