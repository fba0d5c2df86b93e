// How long a fetched document may be kept, from its response's caching headers (RFC 9111, as a
// private cache reads them), within the bounds the keeper sets: never past the longest, so a
// changed document is seen again in time, and never under the shortest, so that the several
// look-ups of one sign-in fetch it once.

export interface CachingHeaders {
  readonly cacheControl?: string | undefined;
  readonly expires?: string | undefined;
  readonly date?: string | undefined;
  readonly age?: string | undefined;
}

export interface FreshnessBounds {
  readonly minMs: number;
  readonly maxMs: number;
}

/** The directives of a Cache-Control value, lower-cased, with their values unquoted. */
function directives(cacheControl: string): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (const part of cacheControl.split(',')) {
    const [name = '', ...value] = part.split('=');
    const key = name.trim().toLowerCase();
    if (key !== '' && !found.has(key))
      found.set(
        key,
        value.length === 0
          ? undefined
          : value
              .join('=')
              .trim()
              .replace(/^"(.*)"$/, '$1'),
      );
  }
  return found;
}

const seconds = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : undefined);

/** The response's own freshness lifetime in milliseconds, its age taken off; undefined when it states none. */
export function statedFreshnessMs(headers: CachingHeaders, nowMs: number): number | undefined {
  const age = seconds(headers.age?.trim()) ?? 0;
  if (headers.cacheControl !== undefined) {
    const given = directives(headers.cacheControl);
    // Not to be stored, or to be checked again before every use: the shortest the bounds allow.
    if (given.has('no-store') || given.has('no-cache')) return 0;
    const maxAge = seconds(given.get('max-age'));
    if (maxAge !== undefined) return maxAge - age;
  }
  if (headers.expires !== undefined) {
    // An Expires that is no HTTP date (often "0", which Date.parse would read as the year 2000) means already expired.
    const expires = /GMT\s*$/.test(headers.expires) ? Date.parse(headers.expires) : Number.NaN;
    if (Number.isNaN(expires)) return 0;
    const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
    return expires - (Number.isNaN(date) ? nowMs : date) - age;
  }
  return undefined;
}

/** How long to keep the response: its stated freshness within `bounds`, the shortest when it states none. */
export function keepForMs(headers: CachingHeaders, nowMs: number, bounds: FreshnessBounds): number {
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, statedFreshnessMs(headers, nowMs) ?? bounds.minMs));
}
