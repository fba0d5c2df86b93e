// CachedTokenResolver with a max age: answers refreshed ahead of use, never used past the max age.
import { describe, expect, it } from 'vitest';
import { manualClock, tokenExpiringIn } from '../testing/index.ts';
import { countingCheck, scope, type Who } from '../../test/counting-check.ts';
import { CachedTokenResolver } from './cached-token-resolver.ts';

describe('CachedTokenResolver with a max age: answers refreshed ahead of use', () => {
  /** Lets every settled promise's reactions run (a check begins, and a refresh lands, within a few microtasks). */
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** A cache of 60 s identities whose answers may be 2 s old at most, refreshed past 1 s. */
  function refreshing() {
    const clock = manualClock(Date.now());
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, maxAgeSeconds: 2, clock });
    return { clock, cache, token: tokenExpiringIn(600, clock()) };
  }

  /** A check whose answers the test releases one by one. */
  function heldCheck() {
    const pending: ((who: Who | null | Error) => void)[] = [];
    const check = countingCheck(
      () =>
        new Promise<Who | null>((resolve, reject) => {
          pending.push((who) => {
            if (who instanceof Error) reject(who);
            else resolve(who);
          });
        }),
    );
    // A check begins on a microtask: let it begin before answering it.
    const answer = async (who: Who | null | Error) => {
      await settled();
      pending.shift()?.(who);
    };
    return { check, answer };
  }

  /** A refreshing cache holding `before` from a held check, and half the max age gone by since: the next look-up refreshes. */
  async function halfAged() {
    const { clock, cache, token } = refreshing();
    const { check, answer } = heldCheck();
    const first = cache.resolve(token, check);
    await answer({ sub: 'before' });
    await first;
    clock.advance(1_000);
    return { clock, cache, token, check, answer };
  }

  it('answers from the cache without checking while the answer is younger than half the max age', async () => {
    const { clock, cache, token } = refreshing();
    const check = countingCheck();
    await cache.resolve(token, check);
    clock.advance(999);
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    expect(check.calls).toBe(1);
  });

  it('past half the max age answers at once from the cache, and refreshes with one check for every look-up', async () => {
    const { cache, token, check, answer } = await halfAged();
    const lookups = await Promise.all(Array.from({ length: 10 }, () => cache.resolve(token, check)));
    expect(lookups.every((who) => who?.sub === 'before')).toBe(true);
    expect(check.calls).toBe(2);
    await answer({ sub: 'after' });
    await settled();
    expect(await cache.resolve(token, check)).toEqual({ sub: 'after' });
    expect(check.calls).toBe(2);
  });

  it('never uses an answer as old as the max age: the look-up waits for a check', async () => {
    const { clock, cache, token } = refreshing();
    let sub = 'before';
    const check = countingCheck(() => ({ sub }));
    await cache.resolve(token, check);
    sub = 'after';
    clock.advance(2_000);
    expect(await cache.resolve(token, check)).toEqual({ sub: 'after' });
    expect(check.calls).toBe(2);
  });

  it('drops the entry when a refresh is refused: the next look-up is refused', async () => {
    const { clock, cache, token } = refreshing();
    let valid = true;
    const check = countingCheck(() => (valid ? { sub: 'user-1' } : null));
    await cache.resolve(token, check);
    valid = false;
    clock.advance(1_500);
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    await settled();
    expect(cache.size).toBe(0);
    expect(await cache.resolve(token, check)).toBeNull();
  });

  it('keeps the answer when a background refresh fails, until the max age; then the look-up fails as the check does', async () => {
    const { clock, cache, token } = refreshing();
    let fail = false;
    const check = countingCheck(() => {
      if (fail) throw new Error('platform down');
      return { sub: 'user-1' };
    });
    await cache.resolve(token, check);
    fail = true;
    clock.advance(1_500);
    expect(await cache.resolve(token, check)).toEqual({ sub: 'user-1' });
    await settled();
    clock.advance(500);
    await expect(cache.resolve(token, check)).rejects.toThrow('platform down');
  });

  it('does not wait on a refresh begun the max age ago or earlier: it checks again', async () => {
    const { clock, cache, token, check, answer } = await halfAged();
    await cache.resolve(token, check); // the refresh begins, and hangs
    clock.advance(2_000);
    const waiting = cache.resolve(token, check);
    await settled();
    expect(check.calls).toBe(3);
    await answer({ sub: 'stale' });
    await answer({ sub: 'fresh' });
    expect(await waiting).toEqual({ sub: 'fresh' });
    await settled();
    // The late answer of the older check does not replace the newer one.
    expect(await cache.resolve(token, check)).toEqual({ sub: 'fresh' });
  });

  it('under look-ups every 100 ms, a change is seen within half the max age plus one look-up', async () => {
    for (const changeAt of [0, 250, 999, 1_000, 1_700]) {
      const { clock, cache, token } = refreshing();
      let sub = 'granted';
      const check = countingCheck(() => ({ sub }));
      await cache.resolve(token, check);
      const start = clock();
      let seenAfter: number | undefined;
      for (let elapsed = 0; seenAfter === undefined && elapsed <= 5_000; elapsed += 100) {
        clock.advance(elapsed === 0 ? 0 : 100);
        if (elapsed === changeAt - (changeAt % 100)) sub = 'revoked';
        const who = await cache.resolve(token, check);
        await settled();
        if (who?.sub === 'revoked') seenAfter = clock() - start - (changeAt - (changeAt % 100));
      }
      expect(seenAfter, `changed at ${changeAt} ms`).toBeLessThanOrEqual(1_100);
    }
  });

  it('without a max age keeps an answer for its whole lifetime, as SPEC says', async () => {
    const clock = manualClock(Date.now());
    const cache = new CachedTokenResolver<Who>({ scope, ttlSeconds: 60, clock });
    const check = countingCheck();
    const token = tokenExpiringIn(600, clock());
    await cache.resolve(token, check);
    clock.advance(59_000);
    await cache.resolve(token, check);
    await settled();
    expect(check.calls).toBe(1);
  });
});
