// A whole-process test that fails leaves no process running: a Vitest run of a fixture whose test
// starts a process group and fails, after which neither the child nor its grandchild is alive.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it, vi } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '../..');

/** True while a process of that pid runs: it exists (signal 0 checks without sending) and is no zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  // /proc/<pid>/stat: "pid (name) state ..."; Z is a zombie, killed but not yet reaped.
  const state = /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  return state !== 'Z';
}

it('kills the process group a failed test started: its child and its grandchild are gone once the run ends', async () => {
  const pidsFile = join(mkdtempSync(join(tmpdir(), 'test-processes-')), 'pids.json');
  const vitest = join(repoRoot, 'node_modules/vitest/vitest.mjs');
  const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'devtools/test/process-cleanup-fixture/vitest.config.ts'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', PIDS_FILE: pidsFile },
    // Without the cleanup the run would wait for the child's output to close (the fixture's sleep).
    timeout: 30_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(1);
  expect(run.stdout + run.stderr).toContain('the assertion that fails');

  const pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
  expect(pids).toHaveLength(2);
  // SIGKILL was sent before the run ended; the kernel may take a moment to end a process.
  await vi.waitFor(
    () => {
      expect(pids.filter(isRunning)).toEqual([]);
    },
    { timeout: 5_000, interval: 50 },
  );
}, 60_000);
