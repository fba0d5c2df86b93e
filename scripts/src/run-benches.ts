// Runs every workspace's benchmarks (<workspace>/bench/*.bench.ts), each in its own process so one
// does not warm or pollute the heap of the next, and ends with how many of the targets they printed
// were met. `npm run bench -- shared` runs one workspace's; `--markdown` ends with the targets as a
// Markdown table (when, which commit, how loaded), the form the docs quote a run in.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { globSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { markdownReport, targetRowOf, targetSummary, type TargetRow } from '@platform/devtools/bench-targets';
import { sourceCondition } from '@platform/devtools/source-condition';
import { repoRoot } from './repo-root.ts';

const markdown = process.argv.includes('--markdown');
const only = process.argv.slice(2).filter((argument) => argument !== '--markdown');
const files = globSync('*/bench/*.bench.ts', { cwd: repoRoot })
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(`${name}/`) || file === name))
  .sort();

if (files.length === 0) {
  console.error('no benchmarks found');
  process.exit(1);
}
let failed = 0;
const rows: (TargetRow & { readonly bench: string })[] = [];
const loadAtStart = loadavg()[0] ?? 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  // Its output passed on line by line as it comes, the targets' verdicts noted on the way.
  const run = spawn(process.execPath, [sourceCondition, '--expose-gc', file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: run.stdout });
  lines.on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const row = targetRowOf(line);
    if (row) rows.push({ bench: file, ...row });
  });
  const [code] = (await once(run, 'close')) as [number | null];
  if (code !== 0) failed += 1;
}
console.log(`\n${targetSummary(rows.map((row) => row.verdict))}${failed > 0 ? `; ${failed} of ${files.length} benches failed` : ''}`);
if (markdown) {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  const run = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    commit,
    cpus: availableParallelism(),
    load: [loadAtStart, loadavg()[0] ?? 0] as const,
  };
  console.log(`\n${markdownReport(rows, run)}`);
}
process.exit(failed === 0 ? 0 : 1);
