// data/stack.json: where the stack npm start (or start:pg) runs serves, written once every service
// is ready and removed when it stops, so that a second terminal (npm run demo, npm run token) finds
// a stack whose ports were moved. It holds addresses, the command and its process id (to tell a
// stack that died without removing it), never a secret.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Environment, StackAddresses } from './processes.ts';

export interface RecordedStack {
  /** The command that runs it: `npm start` or `start:pg`. */
  readonly command: string;
  /** Its runner's process id. */
  readonly pid: number;
  /** When it was ready, as an ISO 8601 time. */
  readonly startedAt: string;
  readonly addresses: StackAddresses;
}

export type StackFileState =
  | { readonly kind: 'absent' }
  /** Its runner is alive. */
  | { readonly kind: 'running'; readonly stack: RecordedStack }
  /** Its runner is gone (killed, or the machine restarted): the file was left behind. */
  | { readonly kind: 'stopped'; readonly stack: RecordedStack };

/** The stack file of the data folder the services use (WEBHOOK_DATA_DIR, or ./data where npm runs the command). */
export function stackFilePath(env: Environment): string {
  return resolve(env.WEBHOOK_DATA_DIR || 'data', 'stack.json');
}

/** The file as a person finds it: relative to the current folder when inside it (`data/stack.json`). */
export function shownStackFile(file: string): string {
  const inside = relative(process.cwd(), file);
  return inside && !inside.startsWith('..') ? inside : file;
}

/** Records `stack` in `file` (mode 0600, its folder 0700), replacing it whole: a reader never sees half a file. */
export function writeStackFile(file: string, stack: RecordedStack): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** Removes `file` when it records the runner `pid` (another stack's file is left alone). */
export function removeStackFile(file: string, pid: number): void {
  const state = readStackFileOrAbsent(file);
  if (state.kind !== 'absent' && state.stack.pid === pid) rmSync(file, { force: true });
}

/** Whether the process `pid` is alive (one of another user's counts: signal 0 is refused, not absent). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isUrl = (value: unknown): value is string => isText(value) && URL.canParse(value);

/** The recorded stack in `json`, or undefined when it is not one. */
function recordedStack(json: unknown): RecordedStack | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const file = json as Partial<Record<keyof RecordedStack, unknown>>;
  if (typeof file.addresses !== 'object' || file.addresses === null) return undefined;
  const at = file.addresses as Partial<Record<keyof StackAddresses, unknown>>;
  const urls = (value: unknown, least: number) => Array.isArray(value) && value.length >= least && value.every(isUrl);
  const valid =
    isText(file.command) &&
    Number.isSafeInteger(file.pid) &&
    isText(file.startedAt) &&
    [at.platformUrl, at.aiUrl, at.mcpUrl, at.receiverUrl].every(isUrl) &&
    [at.registryAddress, at.toolServiceAddress].every(isText) &&
    urls(at.webhookApiUrls, 1) &&
    urls(at.delivererUrls, 0);
  return valid ? (json as RecordedStack) : undefined;
}

/** What `file` says: no stack, a running one, or one that stopped without removing it. Throws, in one line, on a file that is not a stack file. */
export function readStackFile(file: string): StackFileState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw new Error(`${shownStackFile(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const stack = recordedStack(json);
  if (!stack) throw new Error(`${shownStackFile(file)} is not a stack file npm start wrote: remove it, and start the stack again`);
  return { kind: isAlive(stack.pid) ? 'running' : 'stopped', stack };
}

/** As readStackFile, with a file that is not a stack file counted as none (npm start replaces it). */
export function readStackFileOrAbsent(file: string): StackFileState {
  try {
    return readStackFile(file);
  } catch {
    return { kind: 'absent' };
  }
}
