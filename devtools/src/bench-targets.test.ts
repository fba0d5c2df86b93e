import { describe, expect, it } from 'vitest';
import { markdownReport, targetLine, targetRowOf, targetSummary, verdictOf } from './bench-targets.ts';

describe('bench targets', () => {
  it('writes a ratio target with its figure, its baseline and its verdict', () => {
    const line = targetLine({ name: 'Realtime SQLite', figure: 0.534, unit: 'x', of: 'raw undici', atLeast: 0.5 });
    expect(line).toBe('Realtime SQLite 0.53x of raw undici (target ≥ 0.5x): met');
    expect(targetLine({ name: 'Realtime SQLite', figure: 0.49, unit: 'x', of: 'raw undici', atLeast: 0.5 })).toMatch(/: NOT met$/);
  });

  it('writes an upper bound, and a figure that is not a number is never met', () => {
    expect(targetLine({ name: 'p99 ingest to delivery on SQLite', figure: 8.04, unit: ' ms', atMost: 25, digits: 1 })).toBe(
      'p99 ingest to delivery on SQLite 8.0 ms (target ≤ 25 ms): met',
    );
    expect(targetLine({ name: 'p99', figure: Number.NaN, unit: ' ms', atMost: 25 })).toMatch(/: NOT met$/);
  });

  it('reads the verdict back from a line of output, and counts them in the summary', () => {
    const lines = [
      `  ${targetLine({ name: 'a', figure: 2, unit: 'x', atLeast: 1 })}`,
      'Realtime delivery on SQLite',
      `  ${targetLine({ name: 'b', figure: 0.2, unit: 'x', atLeast: 1 })}`,
    ];
    const verdicts = lines.map(verdictOf).filter((v) => v !== undefined);
    expect(verdicts).toEqual(['met', 'NOT met']);
    expect(targetSummary(verdicts)).toBe('Targets: 1 of 2 met (1 NOT met)');
    expect(targetSummary(['met'])).toBe('Targets: 1 of 1 met');
  });

  it('reads a target back as a row, and reports a run as a Markdown table', () => {
    const met = targetRowOf(`  ${targetLine({ name: 'Realtime SQLite', figure: 0.534, unit: 'x', of: 'raw undici', atLeast: 0.5 })}`);
    expect(met).toEqual({ measured: 'Realtime SQLite 0.53x of raw undici', bound: '≥ 0.5x', verdict: 'met' });
    expect(targetRowOf('Realtime delivery on SQLite')).toBeUndefined();
    const missed = targetRowOf(targetLine({ name: 'p99 | odd', figure: 30, unit: ' ms', atMost: 25, digits: 1 }));
    if (!met || !missed) throw new Error('a target line was not read back');
    const report = markdownReport(
      [
        { bench: 'webhook-api/bench/delivery.bench.ts', ...met },
        { bench: 'x.bench.ts', ...missed },
      ],
      { date: '2026-11-28', commit: 'abc1234', cpus: 2, load: [1.24, 2.5] },
    );
    expect(report.split('\n')).toEqual([
      'Run of 2026-11-28 on commit `abc1234`, 2 CPUs, 1-minute load average 1.2 at the start and 2.5 at the end: 1 of 2 met (1 NOT met).',
      '',
      '| bench | measured | target | verdict |',
      '| --- | --- | --- | --- |',
      '| `webhook-api/bench/delivery.bench.ts` | Realtime SQLite 0.53x of raw undici | ≥ 0.5x | met |',
      '| `x.bench.ts` | p99 \\| odd 30.0 ms | ≤ 25 ms | NOT met |',
    ]);
  });
});
