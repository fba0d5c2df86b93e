// The stack's services in start order, each with its composition root and the address it serves.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Service {
  readonly name: string;
  /** The workspace folder that holds src/main.ts. */
  readonly workspace: string;
  /** What it serves, for the start-up banner. */
  readonly address: string;
  /** Variables this service needs beyond the shared ones, given the local secrets and the environment npm start was given. */
  readonly env?: (secrets: Readonly<Record<string, string>>, given: Readonly<Record<string, string | undefined>>) => Record<string, string>;
}

export const repoRoot = resolve(import.meta.dirname, '../..');

export const services: readonly Service[] = [
  { name: 'dev-platform', workspace: 'dev-platform', address: 'http://127.0.0.1:4000' },
  {
    name: 'webhook-api',
    workspace: 'webhook-api',
    address: 'http://127.0.0.1:4100',
    // The local receivers of a dev run are on loopback; never in production.
    env: (secrets, given) => ({
      WEBHOOK_INGEST_TOKEN: secrets.WEBHOOK_INGEST_TOKEN ?? '',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: given.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? String(given.NODE_ENV !== 'production'),
    }),
  },
  { name: 'mcp-server', workspace: 'mcp-server', address: 'http://127.0.0.1:3000/mcp' },
  {
    name: 'tool-service',
    workspace: 'tool-service',
    address: 'grpc 127.0.0.1:50051',
    // It runs as the app webhook-tools; the seed's secret for that client is its own.
    env: (secrets) => ({ APP_CLIENT_ID: 'webhook-tools', APP_CLIENT_SECRET: secrets.WEBHOOK_TOOLS_CLIENT_SECRET ?? '' }),
  },
];

/** Local secrets the services need that no seed names: generated once like the seed's. */
export const serviceSecretNames: readonly string[] = ['WEBHOOK_INGEST_TOKEN'];

export function mainOf(service: Service): string {
  return join(repoRoot, service.workspace, 'src/main.ts');
}

/** The services whose composition root exists in this checkout. */
export function presentServices(): Service[] {
  return services.filter((service) => existsSync(mainOf(service)));
}
