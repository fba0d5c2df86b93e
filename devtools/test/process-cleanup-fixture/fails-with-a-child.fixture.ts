// A test that starts a process group (a shell and its background sleep, as `npm start` starts its
// services) and fails before stopping it: test-processes.ts must end both all the same.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { killedIfTestFails } from '../../src/test-processes.ts';

it('fails while its child and grandchild run', async () => {
  const child = killedIfTestFails(spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] }));
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  writeFileSync(process.env.PIDS_FILE ?? '', JSON.stringify([child.pid, Number(line.toString().trim())]));
  expect('the assertion that fails').toBe('before the test stops its child');
});
