// The linear-time patterns mean what JavaScript's do: the same answer on every text of a table of
// the places RE2 differs, and a pattern JavaScript or RE2 cannot take refused.
import { describe, expect, it } from 'vitest';
import { linearRegExp } from './linear-regexp.ts';

describe('linearRegExp', () => {
  it.each([
    ['^.+$', ['a\rb', 'a\nb', 'ab', 'a\u2028b', 'a\u2029b', '😀']],
    ['^\\S+$', ['a\u00a0b', 'ab', 'a b', 'a\u3000b', 'a\ufeffb']],
    ['^\\s+$', ['\u00a0', '\v', '\ufeff', ' ', '\u2003', 'a']],
    ['^[\\s\\d]+$', ['1 2', '1\u00a02', 'a']],
    ['^[a-z.]+$', ['a.b', 'a\rb']],
    ['^\\.$', ['.', 'a']],
    ['^[^a]$', ['\n', 'b', 'a']],
    ['^\\p{L}+$', ['héllo', 'h1']],
    ['^[\\]a]+$', [']a', 'b']],
    ['^\\\\s$', ['\\s', ' ']],
    ['\\bword\\b', ['a word here', 'awordb']],
    ['^[0-9a-f]{8}-[0-9a-f]{4}$', ['deadbeef-0123', 'deadbeef-012']],
  ])('answers %s as JavaScript does', (pattern, texts) => {
    const ours = linearRegExp(pattern, 'u');
    const javascript = new RegExp(pattern, 'u');
    expect(texts.map((text) => ours.test(text))).toEqual(texts.map((text) => javascript.test(text)));
  });

  it.each(['(?i)abc', '\\Aabc\\z', '[[:alpha:]]', '\\Qa.b\\E', 'a{,3}', '(?s).', '\\-', '^(?=a)a', '(a)\\1', '[\\S]', '[]', '[^]'])(
    'refuses %s, which JavaScript or linear-time matching cannot take as JavaScript means it',
    (pattern) => {
      expect(() => linearRegExp(pattern, 'u')).toThrow();
    },
  );
});
