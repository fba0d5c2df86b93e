// A LIMIT written into a statement's text, for SQLite's statements run on every claim. SQLite (3.53)
// plans with a LIMIT's bound value and so marks its statement to be prepared again whenever that
// parameter is bound, and node:sqlite binds every parameter on every run: a bound LIMIT cost a fresh
// preparation each time (50-100 µs, several times the statement itself). The few values a claim
// uses (slots, window sizes) each keep a prepared statement of their own in the driver's cache.

/** `LIMIT n` for a count this service computed (never a caller's text). */
export function literalLimit(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`a LIMIT must be a whole number, not ${n}`);
  return `LIMIT ${n}`;
}
