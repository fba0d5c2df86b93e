import { describe, expect, it } from 'vitest';
import { extractBearer, parseCredential } from './extract-bearer.ts';

describe('extractBearer', () => {
  it.each([
    ['Bearer abc.def-ghi_jkl~', 'abc.def-ghi_jkl~'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['bEaReR abc', 'abc'],
    ['Bearer   abc', 'abc'],
    ['Bearer abc  ', 'abc'],
    ['Bearer YWJj+/==', 'YWJj+/=='],
  ])('takes the token of %j', (value, token) => {
    expect(extractBearer(value)).toBe(token);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['scheme alone', 'Bearer'],
    ['scheme and a space', 'Bearer '],
    ['another scheme', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l'],
    ['the ApiToken scheme', 'ApiToken abc'],
    ['a token with a space inside', 'Bearer abc def'],
    ['a token with a comma', 'Bearer abc,def'],
    ['a quoted token', 'Bearer "abc"'],
    ['no space after the scheme', 'Bearerabc'],
    ['a leading space', ' Bearer abc'],
    ['padding in the middle', 'Bearer ab=c'],
    ['a repeated header', ['Bearer abc', 'Bearer def']],
  ])('gives no token for %s', (_case, value) => {
    expect(extractBearer(value)).toBeUndefined();
  });
});

describe('parseCredential', () => {
  it('tells the Bearer and ApiToken schemes apart, case-insensitively', () => {
    expect(parseCredential('Bearer abc')).toEqual({ scheme: 'Bearer', token: 'abc' });
    expect(parseCredential('apitoken xyz')).toEqual({ scheme: 'ApiToken', token: 'xyz' });
    expect(parseCredential('APItOKEN xyz')).toEqual({ scheme: 'ApiToken', token: 'xyz' });
  });

  it.each([undefined, '', 'Basic YWJj', 'ApiToken', 'ApiToken a b', 'Token abc'])('gives nothing for %j', (value) => {
    expect(parseCredential(value)).toBeUndefined();
  });

  it('takes a list of one header value, and refuses several (which one counts would depend on the reader)', () => {
    expect(parseCredential(['Bearer abc'])).toEqual({ scheme: 'Bearer', token: 'abc' });
    expect(parseCredential(['Bearer abc', 'Bearer def'])).toBeUndefined();
    expect(parseCredential([])).toBeUndefined();
  });
});
