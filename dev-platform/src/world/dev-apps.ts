// Apps registered while the dev platform runs (PUT /dev/apps/:clientId, what `npm run tool-env`
// calls): an app of its own for a new tool service, with its key, client secret, namespace
// permissions, installations and the tool-publisher mark, so that no service borrows another app's
// identity. Kept in the file PLATFORM_APPS_FILE names (mode 0600: it holds the client secrets), and
// added to the seed at the next start, checked by the seed's own rules; without the file they last
// until the platform stops.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseSeed, SeedError, type Seed } from './seed.ts';
import type { App } from './world.ts';

/** The apps file could not be read as one this platform wrote, or its apps no longer fit the seed. */
export class AppsFileError extends Error {
  override readonly name = 'AppsFileError';
  readonly code = 'APPS_FILE_UNREADABLE';
}

/** What a registration asks for; the client id is the app key, and the platform makes the secret. */
export interface DevAppDefinition {
  readonly clientId: string;
  readonly name: string;
  readonly permissions: readonly string[];
  readonly requestedClientPermissions: readonly string[];
  readonly installations: readonly { readonly companyId: number; readonly consentedPermissions: readonly string[] }[];
  readonly toolPublisher: boolean;
}

export interface DevApps {
  /** The seed with the file's apps added: what the world is built from. */
  readonly seed: Seed;
  /** Whether `clientId` is an app registered here (which a registration may replace), rather than the seed's. */
  isDevApp(clientId: string): boolean;
  /** The app with a new secret, recorded (and written to the file when there is one); `replaced` when it was registered before. */
  register(definition: DevAppDefinition): { readonly app: App; readonly replaced: boolean };
}

const fileVersion = 1;

function readApps(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AppsFileError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const { version, apps } = (json ?? {}) as { version?: unknown; apps?: unknown };
  if (version !== fileVersion || !Array.isArray(apps))
    throw new AppsFileError(`${file} is not an apps file this platform wrote: remove it, and register the apps again`);
  return apps as unknown[];
}

/** Writes the file whole or not at all, readable by its owner alone. */
function writeApps(file: string, apps: readonly App[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify({ version: fileVersion, apps }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
}

/** The seed's apps plus those of `file` (none when it is undefined or absent); throws AppsFileError naming the file and the field. */
export function createDevApps(seed: Seed, file: string | undefined): DevApps {
  const stored = file === undefined ? [] : readApps(file);
  let merged: Seed;
  try {
    // The seed's rules, every one: unique client ids and keys, companies that exist, consent only of what is requested.
    merged = parseSeed({ ...seed, apps: [...seed.apps, ...stored] }, {}, file ?? 'apps');
  } catch (error) {
    if (error instanceof SeedError) throw new AppsFileError(`${error.message} (apps[${seed.apps.length}] and after are the file's)`, { cause: error });
    throw error;
  }
  const registered = new Map(merged.apps.slice(seed.apps.length).map((app) => [app.clientId, app]));
  return {
    seed: merged,
    isDevApp: (clientId) => registered.has(clientId),
    register(definition) {
      const replaced = registered.has(definition.clientId);
      const app: App = {
        appKey: definition.clientId,
        clientId: definition.clientId,
        clientSecret: randomBytes(24).toString('base64url'),
        name: definition.name,
        permissions: [...definition.permissions],
        requestedClientPermissions: [...definition.requestedClientPermissions],
        available: true,
        toolPublisher: definition.toolPublisher,
        installations: definition.installations.map((installation) => ({ ...installation, consentedPermissions: [...installation.consentedPermissions] })),
      };
      const next = new Map(registered).set(app.clientId, app);
      if (file !== undefined) writeApps(file, [...next.values()]);
      registered.set(app.clientId, app);
      return { app, replaced };
    },
  };
}
