import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { manualClock, tokenExpiringIn } from '../testing/index.ts';
import { countingCheck, scope, type Who } from '../../test/counting-check.ts';
import { CachedTokenResolver, tokenExpiry } from './cached-token-resolver.ts';

describe('CachedTokenResolver', () => {
  it('answers a repeated token from the cache without checking again', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    const token = tokenExpiringIn(300, clock());
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    expect(check.calls).toBe(1);
  });

  it('keys on a SHA-256 of the issuer and the whole token, never on a claim', () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    const token = tokenExpiringIn(300, Date.now(), 'user-1');
    const expected = createHash('sha256').update(`${scope}\n${token}`).digest('base64url');
    expect(cache.keyOf(token)).toBe(expected);
    expect(cache.keyOf(token)).not.toContain('user-1');
    const otherIssuer = new CachedTokenResolver<Who>({ scope: 'https://other.example', ttlSeconds: 60 });
    expect(otherIssuer.keyOf(token)).not.toBe(cache.keyOf(token));
  });

  it('treats a new token string for the same caller as a miss', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    await cache.resolve(tokenExpiringIn(300, clock(), 'user-1'), check);
    await cache.resolve(tokenExpiringIn(300, clock(), 'user-1'), check);
    expect(check.calls).toBe(2);
  });

  it('keeps a success no longer than the setting when the token lives longer', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    const token = tokenExpiringIn(600, clock());
    await cache.resolve(token, check);
    clock.advance(59_999);
    await cache.resolve(token, check);
    expect(check.calls).toBe(1);
    clock.advance(1);
    await cache.resolve(token, check);
    expect(check.calls).toBe(2);
  });

  it('keeps a success no longer than the token has left when that is shorter', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    const token = tokenExpiringIn(10, clock());
    await cache.resolve(token, check);
    clock.advance(9_999);
    await cache.resolve(token, check);
    expect(check.calls).toBe(1);
    clock.advance(1);
    await cache.resolve(token, check);
    expect(check.calls).toBe(2);
  });

  it('caps a token without a readable expiry by the setting alone', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 30, clock });
    const check = countingCheck();
    for (const token of ['opaque-api-token', 'a.b.c']) {
      expect(tokenExpiry(token)).toBeUndefined();
      await cache.resolve(token, check);
      await cache.resolve(token, check);
    }
    expect(check.calls).toBe(2);
    clock.advance(30_000);
    await cache.resolve('opaque-api-token', check);
    expect(check.calls).toBe(3);
  });

  it('does not keep a token that has already expired', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    const token = tokenExpiringIn(-5, clock());
    await cache.resolve(token, check);
    await cache.resolve(token, check);
    expect(check.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('keeps only successes: a refused token is checked again on the next call', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    let valid = false;
    const check = countingCheck(() => (valid ? { sub: 'user-1' } : null));
    const token = tokenExpiringIn(300, clock());
    expect(await cache.resolve(token, check)).toBeNull();
    expect(await cache.resolve(token, check)).toBeNull();
    valid = true;
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    expect(check.calls).toBe(3);
  });

  it('does not keep a failure: the next call checks again', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    let fail = true;
    const check = countingCheck(() => {
      if (fail) throw new Error('platform down');
      return { sub: 'user-1' };
    });
    await expect(cache.resolve('tok', check)).rejects.toThrow('platform down');
    fail = false;
    expect(await cache.resolve('tok', check)).toEqual({ sub: 'user-1' });
    expect(check.calls).toBe(2);
  });

  it('checks on every call when the lifetime is 0', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 0 });
    const check = countingCheck();
    await cache.resolve('tok', check);
    await cache.resolve('tok', check);
    expect(check.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('lets a per-call maximum override the default lifetime', async () => {
    const clock = manualClock();
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    await cache.resolve('tok', check, 5);
    clock.advance(5_000);
    await cache.resolve('tok', check, 5);
    expect(check.calls).toBe(2);
  });

  it('shares one check among concurrent look-ups of the same token', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    let release: (who: Who) => void = () => undefined;
    const pending = new Promise<Who>((resolve) => (release = resolve));
    const check = countingCheck(() => pending);
    const lookups = Array.from({ length: 20 }, () => cache.resolve('tok', check));
    release({ sub: 'user-1' });
    const results = await Promise.all(lookups);
    expect(check.calls).toBe(1);
    expect(results.every((r) => r?.sub === 'user-1')).toBe(true);
  });

  it('shares a refusal among concurrent look-ups and keeps nothing', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    const check = countingCheck(() => null);
    const results = await Promise.all([cache.resolve('tok', check), cache.resolve('tok', check)]);
    expect(results).toEqual([null, null]);
    expect(check.calls).toBe(1);
    expect(cache.size).toBe(0);
  });

  it('shares a failure among concurrent look-ups and keeps nothing', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    const check = countingCheck(() => Promise.reject(new Error('platform down')));
    const results = await Promise.allSettled([cache.resolve('tok', check), cache.resolve('tok', check)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(check.calls).toBe(1);
    expect(cache.size).toBe(0);
  });

  it.each(['forget', 'clear'] as const)('hands the answer of a check under way at %s to its callers, and keeps nothing from it', async (drop) => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    let release: (who: Who) => void = () => undefined;
    const check = countingCheck(() => new Promise<Who>((resolve) => (release = resolve)));
    const waiting = cache.resolve('tok', check);
    await Promise.resolve();
    if (drop === 'forget') cache.forget('tok');
    else cache.clear();
    release({ sub: 'before' });
    expect(await waiting).toEqual({ sub: 'before' });
    expect(cache.size).toBe(0);
    const again = countingCheck(() => ({ sub: 'after' }));
    expect(await cache.resolve('tok', again)).toEqual({ sub: 'after' });
    expect(again.calls).toBe(1);
  });

  it('is bounded: the least recently used entries go first', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, maxEntries: 3 });
    const check = countingCheck();
    for (const token of ['a', 'b', 'c', 'd', 'e']) await cache.resolve(token, check);
    expect(cache.size).toBe(3);
    await cache.resolve('e', check);
    expect(check.calls).toBe(5);
    await cache.resolve('a', check);
    expect(check.calls).toBe(6);
  });

  it('forgets a token on request', async () => {
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60 });
    const check = countingCheck();
    await cache.resolve('tok', check);
    cache.forget('tok');
    await cache.resolve('tok', check);
    expect(check.calls).toBe(2);
  });

  it.each([
    [{ scope, ttlSeconds: -1 }, 'ttlSeconds must be 0 or more'],
    [{ scope, ttlSeconds: 60, maxEntries: 0 }, 'maxEntries must be a positive whole number'],
    [{ scope: '', ttlSeconds: 60 }, 'scope must name the issuer'],
    [{ scope, ttlSeconds: 60, maxAgeSeconds: 0 }, 'maxAgeSeconds must be more than 0'],
    [{ scope, ttlSeconds: 60, maxAgeSeconds: 2, refreshAfterSeconds: 3 }, 'refreshAfterSeconds must be more than 0 and at most maxAgeSeconds'],
    [{ scope, ttlSeconds: 60, refreshAfterSeconds: 1 }, 'refreshAfterSeconds needs maxAgeSeconds'],
  ])('refuses bad options with a message naming the option', (options, message) => {
    expect(() => new CachedTokenResolver<Who>(options)).toThrow(message);
  });
});
