// What `npm start` prints once every process is ready: where each part is, how to get a person's
// token, and how to connect an MCP client, with this run's addresses filled in.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { secretNamesOf } from '@platform/devtools/dev-secrets';
import { demoPerson, type Environment, type SeedFacts, type StackAddresses, type StackProcess } from './processes.ts';
import { repoRoot } from '../repo-root.ts';

export interface SeededPerson {
  readonly username: string;
  /** Shown only for the repository's own seed, whose passwords are published dev values. */
  readonly password?: string;
}

export const defaultSeedPath = join(repoRoot, 'dev-platform/seed.json');

/**
 * The seed's people, for the sign-in page `mcp-remote` opens. The default seed's passwords are
 * published dev values and shown; another seed's are its owner's business and are not.
 */
export function seededPeople(seedPath: string): SeededPerson[] {
  const seed = JSON.parse(readFileSync(seedPath, 'utf8')) as { users?: { username?: unknown; password?: unknown }[] };
  const showPasswords = resolve(seedPath) === defaultSeedPath;
  return (seed.users ?? []).flatMap((user) => {
    if (typeof user.username !== 'string') return [];
    return [{ username: user.username, ...(showPasswords && typeof user.password === 'string' && { password: user.password }) }];
  });
}

/** The banner's first line, printed once every service is ready; `npm run demo -- --start` waits for it. */
export const readyLine = 'The stack is ready.';

/** Who the readiness check signs in as (`oscar` when the seed has him, else its first person) and the seed's secret names. */
export function seedFacts(seedPath: string): SeedFacts {
  const people = seededPeople(seedPath);
  const person = people.some((p) => p.username === demoPerson) ? demoPerson : (people[0]?.username ?? demoPerson);
  return { person, secretNames: secretNamesOf(seedPath) };
}

/** A file as a person finds it from the repository: relative inside it, whole elsewhere. */
function shownPath(file: string): string {
  const inside = relative(repoRoot, file);
  return inside && !inside.startsWith('..') ? inside : file;
}

/** Where the /metrics token of this run comes from, for the banner to say (never the token itself). */
export type MetricsTokenSource = 'secrets-file' | 'environment' | 'public';

export function metricsTokenSource(env: Environment): MetricsTokenSource {
  if (env.WEBHOOK_METRICS_PUBLIC === 'true') return 'public';
  return env.WEBHOOK_METRICS_TOKEN ? 'environment' : 'secrets-file';
}

/** The banner's lines on /metrics: where the token is and a command that sends it, or that it is open. */
function metricsLines(metricsUrl: string, source: MetricsTokenSource, secretsFile: string): string[] {
  if (source === 'public') return [`  GET ${metricsUrl}: open to anyone who reaches the port (WEBHOOK_METRICS_PUBLIC=true)`];
  if (source === 'environment') return [`  GET ${metricsUrl}: asks for your WEBHOOK_METRICS_TOKEN as a bearer token`];
  const file = shownPath(secretsFile);
  return [
    `  GET ${metricsUrl}: asks for WEBHOOK_METRICS_TOKEN (in ${file}) as a bearer token:`,
    `    curl -H "Authorization: Bearer $(grep ^WEBHOOK_METRICS_TOKEN= ${file} | cut -d= -f2)" ${metricsUrl}`,
  ];
}

export function stackBanner(options: {
  readonly processes: readonly StackProcess[];
  readonly readiness: ReadonlyMap<string, string>;
  readonly addresses: StackAddresses;
  readonly people: readonly SeededPerson[];
  readonly secretsFile: string;
  /** Where the addresses are recorded for a second terminal, as shown (`data/stack.json`). */
  readonly stackFile: string;
  readonly metricsToken: MetricsTokenSource;
}): string {
  const { processes, readiness, addresses, people, secretsFile } = options;
  const width = Math.max(...processes.map((p) => p.name.length));
  const mcp = addresses.mcpUrl;
  const someone = people.find((p) => p.username === demoPerson) ?? people[0];
  const desktopConfig = JSON.stringify({ mcpServers: { 'device-telemetry': { command: 'npx', args: ['mcp-remote', mcp] } } });
  return [
    '',
    readyLine,
    '',
    ...processes.map((p) => `  ${p.name.padEnd(width)}  ${p.serves}${p.ready.kind === 'tools' ? `: ${readiness.get(p.name) ?? ''}` : ''}`),
    '',
    `Try it (in a second terminal: these commands find this stack's addresses in ${options.stackFile}):`,
    '  npm run demo                       the scripted demo: tools, a webhook, telemetry delivered, refusals',
    `  npm run token -- ${someone?.username ?? '<username>'}             a person's token for the MCP gateway (--api: for the REST API)`,
    `  people: ${people.map((p) => (p.password === undefined ? p.username : `${p.username} / ${p.password}`)).join(', ')}`,
    ...metricsLines(`${addresses.webhookApiUrls[0] ?? ''}/metrics`, options.metricsToken, secretsFile),
    '',
    `Connect an MCP client to ${mcp}:`,
    '  MCP Inspector, command line:',
    `    npx @modelcontextprotocol/inspector --cli ${mcp} --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token -- ${someone?.username ?? '<username>'})"`,
    '  mcp-remote (signs in through your browser: discovery, dynamic registration, code + PKCE):',
    `    npx mcp-remote ${mcp}`,
    '  An agent desktop (claude_desktop_config.json and the like):',
    `    ${desktopConfig}`,
    '',
    `Secrets of this local run: ${shownPath(secretsFile)}. Ctrl-C stops everything.`,
    '',
  ].join('\n');
}
