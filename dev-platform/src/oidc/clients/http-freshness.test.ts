import { describe, expect, it } from 'vitest';
import { keepForMs, statedFreshnessMs } from './http-freshness.ts';

const now = Date.UTC(2026, 6, 28, 12);
const bounds = { minMs: 30_000, maxMs: 86_400_000 };

describe('statedFreshnessMs', () => {
  it.each([
    ['max-age', { cacheControl: 'max-age=120' }, 120_000],
    ['a quoted max-age among other directives', { cacheControl: 'public, MAX-AGE="60", must-revalidate' }, 60_000],
    ['max-age less Age', { cacheControl: 'max-age=120', age: '20' }, 100_000],
    ['max-age over Expires', { cacheControl: 'max-age=120', expires: new Date(now + 600_000).toUTCString() }, 120_000],
    ['no-store over max-age', { cacheControl: 'no-store, max-age=120' }, 0],
    ['no-cache', { cacheControl: 'no-cache' }, 0],
    ['Expires against Date', { expires: new Date(now + 600_000).toUTCString(), date: new Date(now + 100_000).toUTCString() }, 500_000],
    ['Expires against now, with no Date', { expires: new Date(now + 600_000).toUTCString() }, 600_000],
    ['an Expires that does not parse', { expires: '0' }, 0],
    ['a max-age that is no number, then nothing', { cacheControl: 'max-age=soon' }, undefined],
    ['nothing', {}, undefined],
  ])('reads %s', (_case, headers, freshness) => {
    expect(statedFreshnessMs(headers, now)).toBe(freshness);
  });
});

describe('keepForMs', () => {
  it('keeps within the bounds, the shortest when nothing is stated', () => {
    expect(keepForMs({ cacheControl: 'max-age=600' }, now, bounds)).toBe(600_000);
    expect(keepForMs({ cacheControl: 'max-age=5' }, now, bounds)).toBe(30_000);
    expect(keepForMs({ cacheControl: 'max-age=31536000' }, now, bounds)).toBe(86_400_000);
    expect(keepForMs({ expires: new Date(now - 60_000).toUTCString() }, now, bounds)).toBe(30_000);
    expect(keepForMs({}, now, bounds)).toBe(30_000);
  });
});
