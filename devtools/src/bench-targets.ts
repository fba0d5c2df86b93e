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
