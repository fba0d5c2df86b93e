import { describe, expect, it } from 'vitest';
import { formatDuration } from './duration-text.ts';

describe('formatDuration', () => {
  it('says a duration in its two largest units', () => {
    expect(formatDuration(250)).toBe('250ms');
    expect(formatDuration(1_500)).toBe('1s 500ms');
    expect(formatDuration(60_000)).toBe('1m');
    expect(formatDuration(24 * 3_600_000)).toBe('1d');
    expect(formatDuration(24 * 3_600_000 + 3_600_000 + 61_000)).toBe('1d 1h');
    expect(formatDuration(3_600_000 + 1_000)).toBe('1h');
    expect(formatDuration(0)).toBe('0ms');
  });
});
