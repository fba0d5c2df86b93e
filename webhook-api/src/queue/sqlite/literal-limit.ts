// A LIMIT written into a statement's text, for SQLite's statements run on every claim. SQLite (3.53)
// plans with a LIMIT's bound value and so marks its statement to be prepared again whenever that
// parameter is bound, and node:sqlite binds every parameter on every run: a bound LIMIT cost a fresh
// preparation each time (50-100 µs, several times the statement itself). The few values a claim
// uses (slots, window sizes) each keep a prepared statement of their own in the driver's cache.

/** `LIMIT n` for a count this service computed (never a caller's text). */
function literalLimit(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`a LIMIT must be a whole number, not ${n}`);
  return `LIMIT ${n}`;
}

/**
 * A statement's text for each limit, built once: the driver finds its prepared statement by the
 * text, and a string built anew each time is hashed anew (a claim's texts run to a kilobyte or two).
 */
export function textsByLimit(build: (limit: string) => string): (n: number) => string {
  const texts = new Map<number, string>();
  return (n) => {
    let text = texts.get(n);
    if (text === undefined) {
      text = build(literalLimit(n));
      texts.set(n, text);
    }
    return text;
  };
}
