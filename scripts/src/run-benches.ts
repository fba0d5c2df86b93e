// Runs every workspace's benchmarks (<workspace>/bench/*.bench.ts), each in its own process so one
// does not warm or pollute the heap of the next. `npm run bench -- shared` runs one workspace's.
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const only = process.argv.slice(2);
const files = globSync('*/bench/*.bench.ts', { cwd: root })
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(`${name}/`)))
  .sort();

if (files.length === 0) {
  console.error('no benchmarks found');
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const run = spawnSync(process.execPath, ['--expose-gc', file], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
