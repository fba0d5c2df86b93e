// Finding a key given twice in one object of a JSON text, which JSON.parse silently collapses (the last wins).
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from './json-duplicate-keys.ts';

describe('firstDuplicateKey', () => {
  it.each([
    ['a key given twice', '{"X-A":"1","X-A":"2"}', 'X-A'],
    ['a key given twice with whitespace around it', '{ "X-A" : "1" ,\n\t"X-A"\r\n:"2" }', 'X-A'],
    ['the same key spelled with an escape', '{"X-A":"1","X\\u002dA":"2"}', 'X-A'],
    ['a key with an escaped quote given twice', '{"a\\"b":"1","a\\"b":"2"}', 'a"b'],
    ['a key ending in an escaped backslash given twice', '{"a\\\\":"1","a\\\\":"2"}', 'a\\'],
    ['a key given twice in a nested object', '{"headers":{"X-A":"1","X-B":"2","X-A":"3"}}', 'X-A'],
    ['a key given twice in an object inside an array', '[1,{"a":[{"b":1,"b":2}]}]', 'b'],
    ['the outer key given twice around nested objects', '{"headers":{"X-A":"1"},"headers":{"X-B":"2"}}', 'headers'],
    ['an empty key given twice', '{"":1,"":2}', ''],
  ])('finds %s', (_case, text, key) => {
    expect(firstDuplicateKey(text)).toBe(key);
  });

  it.each([
    ['distinct keys', '{"X-A":"1","X-B":"2"}'],
    ['keys that differ only in case', '{"X-A":"1","x-a":"2"}'],
    ['a value that looks like a repeated key', '{"X-A":"\\"X-A\\":","X-B":"{\\"X-B\\":1}"}'],
    ['a value ending in an escaped backslash', '{"X-A":"c:\\\\","X-B":"X-A"}'],
    ['the same key in sibling objects', '{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}'],
    ['the same key in an object and its parent', '{"k":{"k":{"k":1}}}'],
    ['an array of equal strings', '["a","a"]'],
    ['a string', '"a"'],
    ['numbers and literals', '{"a":1.5e3,"b":true,"c":null,"d":[false]}'],
    ['an unterminated string, which is not JSON', '{"a":"b'],
    ['a backslash at the very end, which is not JSON', '{"a\\'],
  ])('finds nothing in %s', (_case, text) => {
    expect(firstDuplicateKey(text)).toBeUndefined();
  });
});
