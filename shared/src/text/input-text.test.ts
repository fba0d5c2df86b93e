import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { unsafeCharacterCases } from '@platform/devtools/unsafe-text';
import { plainText, serializedWebAddress, webAddressProblem } from './input-text.ts';
import { isPlainText } from './text-safety.ts';

describe('plain text', () => {
  it.each(['Boiler feed', 'Conditions générales — 利用規約', 'tab-free 🙂', 'family 👨\u200D👩\u200D👧', 'عربي and English'])('takes %j', (value) => {
    expect(isPlainText(value)).toBe(true);
    expect(plainText(z.string()).safeParse(value).success).toBe(true);
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['a DEL', 'a\u007fb'],
    ['a C1 control', 'a\u0085b'],
    ['a line break', 'a\nb'],
    ['an unpaired surrogate', 'a\ud800b'],
    ['a right-to-left override', 'invoice\u202Efdp.exe'],
    ['a right-to-left isolate', 'a\u2067b'],
    ['a line separator', 'a\u2028b'],
  ])('refuses %s', (_case, value) => {
    expect(isPlainText(value)).toBe(false);
    expect(plainText(z.string()).safeParse(value).success).toBe(false);
  });
});

describe('webAddressProblem', () => {
  it.each([
    ['https://receiver.example/hook', undefined],
    ['HTTP://Receiver.example:8080/a?b=c', undefined],
    ['https://user:pw@receiver.example/', 'userInfo'],
    ['https://@receiver.example/', 'userInfo'],
    ['https:receiver.example/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['https://receiver.example\\@evil.example/', 'backslash'],
    ['https://receiver.ex\tample/', 'invisible'],
    ['https://receiver.example/\u200b', 'invisible'],
    ['https://receiver.example/a\ud800', 'notWellFormed'],
    ['https:///path', 'host'],
    ['https://%72eceiver.example/', 'encodedHost'],
    ['https://receiver.example/#top', 'fragment'],
    ['https://receiver.example:99999/', 'unparsable'],
  ] as const)('judges %j: %s', (value, problem) => {
    expect(webAddressProblem(value)).toBe(problem);
  });

  it('allows a fragment where a person opens the address', () => {
    expect(webAddressProblem('https://legal.example/terms#top', { allowFragment: true })).toBeUndefined();
  });

  it('serializes as the WHATWG parser does', () => {
    expect(serializedWebAddress('HTTPS://Bücher.example:443/a/../b')).toBe('https://xn--bcher-kva.example/b');
  });
});

describe('the input checks and the text-safety classes', () => {
  // Every edge takes its class from text-safety.ts: the input checks refuse each character the others clean.
  it.each(unsafeCharacterCases)('refuse %s in typed text and in a web address', (_, character) => {
    expect(isPlainText(`Boiler${character}feed`)).toBe(false);
    expect(plainText(z.string()).safeParse(`Boiler${character}feed`).success).toBe(false);
    expect(webAddressProblem(`https://example.com/a${character}b`)).toMatch(/^(invisible|notWellFormed)$/);
  });
});
