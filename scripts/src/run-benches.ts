// Runs every workspace's benchmarks (<workspace>/bench/*.bench.ts), each in its own process so one
// does not warm or pollute the heap of the next, and ends with how many of the targets they printed
// were met. `npm run bench -- shared` runs one workspace's.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { globSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { targetSummary, verdictOf } from '@platform/devtools/bench-targets';
import { sourceCondition } from '@platform/devtools/source-condition';
import { repoRoot } from './repo-root.ts';

const only = process.argv.slice(2);
const files = globSync('*/bench/*.bench.ts', { cwd: repoRoot })
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(`${name}/`) || file === name))
  .sort();

if (files.length === 0) {
  console.error('no benchmarks found');
  process.exit(1);
}
let failed = 0;
const verdicts: ('met' | 'NOT met')[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  // Its output passed on line by line as it comes, the targets' verdicts noted on the way.
  const run = spawn(process.execPath, [sourceCondition, '--expose-gc', file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: run.stdout });
  lines.on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const verdict = verdictOf(line);
    if (verdict) verdicts.push(verdict);
  });
  const [code] = (await once(run, 'close')) as [number | null];
  if (code !== 0) failed += 1;
}
console.log(`\n${targetSummary(verdicts)}${failed > 0 ? `; ${failed} of ${files.length} benches failed` : ''}`);
process.exit(failed === 0 ? 0 : 1);
