// Shortened text: the length it keeps to, where the ellipsis goes, and what one line removes.
import { describe, expect, it } from 'vitest';
import { clip } from './short-text.ts';
import { oneLine } from './text-safety.ts';

describe('clip', () => {
  it('keeps text up to the length as it is', () => {
    expect(clip('abcde', 5)).toBe('abcde');
    expect(clip('', 5)).toBe('');
  });

  it('cuts longer text to the length, the ellipsis included', () => {
    expect(clip('abcdef', 5)).toBe('abcd…');
    expect(clip('x'.repeat(5_000), 1_000)).toHaveLength(1_000);
  });
});

describe('oneLine', () => {
  it('turns each run of control characters into one space and trims the ends', () => {
    expect(oneLine('\r\nfirst\nforged: line\u0000\u007fend\t')).toBe('first forged: line end');
  });
});
