// The nesting limit of parsed JSON: where it counts from, and input too deep for a recursive walk.
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-nesting.ts';

/** `levels` arrays, one inside the other, around `inner`. */
const nested = (levels: number, inner: unknown = 1): unknown => JSON.parse(`${'['.repeat(levels)}${JSON.stringify(inner)}${']'.repeat(levels)}`);

describe('nestsDeeperThan', () => {
  it('counts the outermost object or array as level 1, and a value that is neither as no level', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 2)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
  });

  it('takes exactly the limit and refuses one level more, on any branch', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan({ shallow: 1, deep: nested(64) }, 64)).toBe(true);
  });

  it('measures nesting far past what a recursive walk could', () => {
    expect(nestsDeeperThan(nested(100_000), 64)).toBe(true);
  });
});
