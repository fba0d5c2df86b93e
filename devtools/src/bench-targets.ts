// A benchmark's targets, one line each with the figure, the bound and whether it is met, in a form
// the bench runner reads back from every bench's output to say at the end how many were met.

/** A line of the report on standard output, as bench-report.ts writes them. */
const print = (line: string) => process.stdout.write(`${line}\n`);

export interface Target {
  /** What is measured: `Realtime SQLite`. */
  readonly name: string;
  readonly figure: number;
  /** Written right after the figure and the bound: `x`, ` ms`. */
  readonly unit: string;
  /** What the figure is relative to, when it is a ratio: `raw undici`. */
  readonly of?: string;
  /** The figure must be at least this... */
  readonly atLeast?: number;
  /** ...or at most this. */
  readonly atMost?: number;
  /** Decimals of the figure; 2 when omitted. */
  readonly digits?: number;
}

const verdictPattern = /\(target [≥≤] [^)]*\): (met|NOT met)$/;
const linePattern = /^(?<measured>.+) \(target (?<bound>[≥≤] [^)]*)\): (?<verdict>met|NOT met)$/;

export function isMet({ figure, atLeast, atMost }: Target): boolean {
  if (!Number.isFinite(figure)) return false;
  return (atLeast === undefined || figure >= atLeast) && (atMost === undefined || figure <= atMost);
}

/** `Realtime SQLite 0.53x of raw undici (target ≥ 0.5x): met` */
export function targetLine(target: Target): string {
  const { name, figure, unit, of, atLeast, atMost, digits = 2 } = target;
  if ((atLeast === undefined) === (atMost === undefined)) throw new Error(`target ${name}: give one of atLeast and atMost`);
  const bound = atLeast === undefined ? `≤ ${atMost}${unit}` : `≥ ${atLeast}${unit}`;
  return `${name} ${figure.toFixed(digits)}${unit}${of ? ` of ${of}` : ''} (target ${bound}): ${isMet(target) ? 'met' : 'NOT met'}`;
}

/** Prints the target's line; whether it is met. */
export function printTarget(target: Target): boolean {
  print(`  ${targetLine(target)}`);
  return isMet(target);
}

/** Whether a line of a bench's output is a target's, and if so whether it was met. */
export function verdictOf(line: string): 'met' | 'NOT met' | undefined {
  const found = verdictPattern.exec(line.trimEnd());
  return found?.[1] === 'met' ? 'met' : found?.[1] === 'NOT met' ? 'NOT met' : undefined;
}

/** The closing line of a run: how many of the targets printed were met. */
export function targetSummary(verdicts: readonly ('met' | 'NOT met')[]): string {
  const met = verdicts.filter((v) => v === 'met').length;
  return `Targets: ${met} of ${verdicts.length} met${met < verdicts.length ? ` (${verdicts.length - met} NOT met)` : ''}`;
}

/** A target's line read back: what was measured (name, figure, baseline), its bound and its verdict. */
export interface TargetRow {
  readonly measured: string;
  readonly bound: string;
  readonly verdict: 'met' | 'NOT met';
}

/** The target a line of a bench's output states, if it is a target's line. */
export function targetRowOf(line: string): TargetRow | undefined {
  const groups = linePattern.exec(line.trim())?.groups;
  if (!groups?.measured || !groups.bound || !groups.verdict) return undefined;
  return { measured: groups.measured, bound: groups.bound, verdict: groups.verdict === 'met' ? 'met' : 'NOT met' };
}

/** Where and when a run was made, for its Markdown report. */
export interface RunConditions {
  readonly date: string;
  readonly commit: string;
  readonly cpus: number;
  /** The 1-minute load average at the start and at the end of the run. */
  readonly load: readonly [number, number];
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/**
 * The targets of a run as a Markdown table, under a line saying when, on which commit and how loaded
 * the machine was: what `npm run bench -- --markdown` prints for the docs, so figures are pasted, not typed.
 */
export function markdownReport(rows: readonly (TargetRow & { readonly bench: string })[], run: RunConditions): string {
  const verdicts = rows.map((row) => row.verdict);
  return [
    `Run of ${run.date} on commit \`${run.commit}\`, ${run.cpus} CPUs, 1-minute load average ${run.load[0].toFixed(1)} at the start and ${run.load[1].toFixed(1)} at the end: ${targetSummary(verdicts).replace(/^Targets: /, '')}.`,
    '',
    '| bench | measured | target | verdict |',
    '| --- | --- | --- | --- |',
    ...rows.map((row) => `| \`${cell(row.bench)}\` | ${cell(row.measured)} | ${cell(row.bound)} | ${row.verdict} |`),
  ].join('\n');
}
