// A duration as people read it, for the texts the queue writes (why an endpoint was disabled, why a
// delivery expired); the settings parse the same units (retry-schedule.ts).

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

const units: readonly (readonly [string, number])[] = [
  ['d', day],
  ['h', hour],
  ['m', minute],
  ['s', second],
  ['ms', 1],
];

/** A duration as people read it, in its largest unit and the one below it: `1d 2h`, `30m`, `1s 500ms`, `250ms`. */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  const first = units.findIndex(([, size]) => whole >= size);
  if (first < 0) return '0ms';
  const [unit, size] = units[first] as readonly [string, number];
  const next = units[first + 1];
  const rest = next === undefined ? 0 : Math.floor((whole % size) / next[1]);
  return rest > 0 && next ? `${Math.floor(whole / size)}${unit} ${rest}${next[0]}` : `${Math.floor(whole / size)}${unit}`;
}
