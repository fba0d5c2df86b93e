// What `npm run tool-env` gives a tool service outside the repository: its arguments read, the app
// it asks the dev platform for, and the .env it writes (the service's variables, merged into what
// the file already holds, mode 0600: it holds the app's client secret).
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';

export const toolEnvUsage =
  'usage: npm run tool-env -- <name> --out <file> [--company <id>=<permission>,...]... [--permission <name>:<action>]...\n' +
  '  registers the app <name> on the running dev platform, issues a certificate of its development CA for <name>,\n' +
  '  and writes the variables of a tool service running as that app to <file> (e.g. --out ../my-tools/.env).\n' +
  '  --company: where the app is installed and what is consented there (default: 1=device-overview:view,device-overview:manage and 2=device-overview:view)\n' +
  "  --permission: a permission of the app's own namespace (<name>:...)";

/** What a service may be called: the app key, client id, service name and certificate name at once. */
const namePattern = /^[a-z][a-z0-9-]{0,62}$/;
const permissionPattern = /^[a-z0-9-]+(:[a-z0-9-]+)+$/;

export interface Installation {
  readonly companyId: number;
  readonly consentedPermissions: readonly string[];
}

export interface ToolEnvRequest {
  readonly name: string;
  /** The .env to write, as given (relative to where the person ran npm). */
  readonly out: string;
  readonly installations: readonly Installation[];
  readonly permissions: readonly string[];
}

/** The installations a new app gets unless told: those of the seed's webhook-tools, so the template's tool answers as its README says. */
export const defaultInstallations: readonly Installation[] = [
  { companyId: 1, consentedPermissions: ['device-overview:view', 'device-overview:manage'] },
  { companyId: 2, consentedPermissions: ['device-overview:view'] },
];

/** Thrown for arguments that cannot be used; the message names the argument. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE_INVALID';
}

function installationOf(value: string): Installation {
  const match = /^([1-9][0-9]{0,8})=(.*)$/.exec(value);
  if (!match) throw new UsageError(`--company ${value}: must be <company id>=<permission>,... (e.g. 1=device-overview:view)`);
  const consentedPermissions = (match[2] ?? '').split(',').filter(Boolean);
  const bad = consentedPermissions.find((permission) => !permissionPattern.test(permission));
  if (bad !== undefined) throw new UsageError(`--company ${value}: ${bad} must look like area:action`);
  return { companyId: Number(match[1]), consentedPermissions };
}

/** The request the arguments make; throws UsageError naming the argument at fault. */
export function parseToolEnvArguments(args: readonly string[]): ToolEnvRequest {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { out: { type: 'string' }, company: { type: 'string', multiple: true }, permission: { type: 'string', multiple: true } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const { positionals, values } = parsed;
  const [name] = positionals;
  if (name === undefined || positionals.length > 1) throw new UsageError('<name>: give one name for the new tool service, e.g. my-tools');
  if (!namePattern.test(name)) throw new UsageError(`<name>: ${name} must be 1 to 63 lower-case letters, digits and dashes, starting with a letter`);
  if (!values.out) throw new UsageError('--out: name the .env file to write, e.g. --out ../my-tools/.env');
  const permissions = values.permission ?? [];
  const outside = permissions.find((permission) => !permissionPattern.test(permission) || !permission.startsWith(`${name}:`));
  if (outside !== undefined) throw new UsageError(`--permission ${outside}: must be a permission of the app's own namespace, ${name}:<action>`);
  return { name, out: values.out, installations: values.company?.map(installationOf) ?? defaultInstallations, permissions };
}

/** `KEY=value` as Node's .env parser reads it back: quoted when the value has anything but plain characters. */
function line(key: string, value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? `${key}=${value}` : `${key}=${JSON.stringify(value)}`;
}

const header = '# Written by npm run tool-env';

/**
 * Writes `variables` into `file` (created with its folder when missing), keeping the lines of any
 * other variable the file holds; the file ends up mode 0600 and is replaced whole.
 */
export function writeEnvFile(file: string, variables: Readonly<Record<string, string>>, note: string): void {
  const kept = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((text) => {
          const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(text)?.[1];
          return !(key !== undefined && key in variables) && !text.startsWith(header) && text !== '';
        })
    : [];
  const body = [`${header} ${note}. It holds the app's client secret: never commit it.`, ...Object.entries(variables).map(([key, value]) => line(key, value))];
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${[...body, ...kept].join('\n')}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
}
