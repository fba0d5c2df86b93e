// The official MCP conformance suite (@modelcontextprotocol/conformance) run against a gateway that
// asks for a person's token: the suite has no option for one, so a preloaded module
// (conformance-bearer-main.ts) adds `Authorization: Bearer <token>` to every request it sends there.
// The gateway's tests and `npm run conformance` both run it this way.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);

/** The suite's command line, as Node runs it. */
export const conformanceCli = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

/** The suite's scenarios of the tasks extension (io.modelcontextprotocol/tasks), which the repository's fixtures answer. */
export const conformanceTaskScenarios: readonly string[] = [
  'lifecycle',
  'capability-negotiation',
  'wire-fields',
  'request-state-removal',
  'mrtr-input',
  'request-headers',
  'dispatch-and-envelope',
  'required-task-error',
  'mrtr-composition',
].map((name) => `tasks-${name}`);

/** The module that signs the suite's requests in. */
export const conformanceBearer = resolve(import.meta.dirname, 'conformance-bearer-main.ts');

/** Node's arguments to run the suite's `server` command at `url` with `args`, signed in by the preload. */
export function conformanceArgs(url: string, args: readonly string[]): string[] {
  return ['--import', conformanceBearer, conformanceCli, 'server', '--url', url, ...args];
}

/** `environment` (the caller's, read once where it reads its settings) with the preload's token, sent to `url`'s origin only. */
export function conformanceEnv(environment: NodeJS.ProcessEnv, url: string, token: string): NodeJS.ProcessEnv {
  return { ...environment, MCP_BEARER_TOKEN: token, MCP_BEARER_ORIGIN: url };
}

/** Runs the suite in `environment` (the caller's): its exit code and what it printed. */
export async function runConformance(
  environment: NodeJS.ProcessEnv,
  url: string,
  token: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, conformanceArgs(url, args), {
      env: conformanceEnv(environment, url, token),
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { exitCode: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}
