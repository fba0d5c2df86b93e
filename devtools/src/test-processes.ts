// Child processes a failed test started end with it: a failed assertion skips the test's own stop,
// and a service left running holds its ports and its database after the run has ended (a failed
// HAProxy test once left two gateways behind). Each registered child is killed with its whole
// process group (an `npm start` and the services it starts are one group, when spawned detached)
// as soon as its test fails; a test that passes stops its processes itself, gently, as before. One
// started outside a test (in a beforeAll) is the suite's own teardown's, and whatever is left is
// killed when the test worker exits.
import type { ChildProcess } from 'node:child_process';
import { onTestFailed } from 'vitest';

const running = new Set<ChildProcess>();

/** SIGKILL to `child`'s process group (the child alone when it leads none); nothing once all have ended. */
export function killProcessGroup(child: ChildProcess): void {
  running.delete(child);
  if (child.pid === undefined) return;
  // The child itself only while Node has not seen it end: a reaped pid may be another process's by now.
  const alive = child.exitCode === null && child.signalCode === null;
  for (const target of alive ? [-child.pid, child.pid] : [-child.pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch (error) {
      // ESRCH: no such group (a child spawned without detached) or it has ended already.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

process.once('exit', () => {
  for (const child of running) killProcessGroup(child);
});

/**
 * Registers `child` to be killed, with its process group, when the running test fails. Spawn it
 * with `detached: true` for its descendants to go with it.
 */
export function killedIfTestFails<Child extends ChildProcess>(child: Child): Child {
  running.add(child);
  try {
    onTestFailed(() => {
      killProcessGroup(child);
    });
  } catch {
    // Not within a test (a beforeAll or a module's top level): the suite's afterAll stops it, the
    // exit handler above at the latest.
  }
  return child;
}
