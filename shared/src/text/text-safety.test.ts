// The one text-safety module: every operation covers the same characters, so what a check refuses,
// a clean removes and a stored copy replaces.
import { layoutCharacters, unsafeCharacterCases } from '@platform/devtools/unsafe-text';
import { describe, expect, it } from 'vitest';
import {
  hasInvisibleCharacters,
  isPlainText,
  isSafeText,
  needsCleaning,
  oneLine,
  shownText,
  storableText,
  unsafeTextMessages,
  unsafeTextProblem,
} from './text-safety.ts';

const ordinary = 'Webhook “Lager 3” — 25 °C, ünïcödé, 漢字, emoji 👩‍💻 (zero-width joiner kept)';

describe('the checks', () => {
  it.each(unsafeCharacterCases)('refuse %s in single-line and in multi-line text', (_, character) => {
    const text = `before${character}after`;
    expect(isPlainText(text)).toBe(false);
    expect(isSafeText(text)).toBe(false);
    expect(needsCleaning(text)).toBe(true);
    expect(unsafeTextProblem(text)).toBeDefined();
    expect(unsafeTextProblem(text, { multiline: true })).toBeDefined();
    expect(hasInvisibleCharacters(text)).toBe(true);
  });

  it('let ordinary text through, and tab and line feed in multi-line text only', () => {
    expect(isPlainText(ordinary)).toBe(true);
    expect(isSafeText(ordinary)).toBe(true);
    for (const character of Object.values(layoutCharacters)) {
      expect(isPlainText(`a${character}b`)).toBe(false);
      expect(isSafeText(`a${character}b`)).toBe(true);
      expect(unsafeTextProblem(`a${character}b`, { multiline: true })).toBeUndefined();
    }
  });

  it('name the problem in words that never repeat the text', () => {
    expect(unsafeTextProblem('a\u0000b')).toBe('controls');
    expect(unsafeTextProblem('a\u202eb')).toBe('direction');
    expect(unsafeTextProblem('a\ud800b')).toBe('notWellFormed');
    expect(Object.values(unsafeTextMessages).every((message) => message.startsWith('must'))).toBe(true);
  });

  it('count a space and a zero-width space as invisible in an address', () => {
    expect(hasInvisibleCharacters('https://example.com/a b')).toBe(true);
    expect(hasInvisibleCharacters('https://example.com/a\u200bb')).toBe(true);
    expect(hasInvisibleCharacters('https://example.com/ä')).toBe(false);
  });
});

describe('the cleaning', () => {
  it.each(unsafeCharacterCases)('shownText leaves no %s, and what it leaves passes the check', (_, character) => {
    const shown = shownText(`before${character}after`);
    expect(isSafeText(shown)).toBe(true);
    expect(shown.startsWith('before') && shown.endsWith('after')).toBe(true);
  });

  it('shownText keeps tab and line feed, makes CRLF and separators line feeds, and changes nothing else', () => {
    expect(shownText('a\tb\r\nc\u2028d\u2029e')).toBe('a\tb\nc\nd\ne');
    expect(shownText(ordinary)).toBe(ordinary);
    expect(shownText('\u001b[31mred\u001b[0m \u202eevil')).toBe('[31mred[0m evil');
  });

  it.each(unsafeCharacterCases)('oneLine leaves no %s, and gives plain text', (_, character) => {
    expect(isPlainText(oneLine(`before${character}after\nnext`))).toBe(true);
  });

  it('oneLine turns runs of controls and line breaks into one space and trims', () => {
    expect(oneLine('\r\nfirst\nforged: line\u0000\u007fend\t')).toBe('first forged: line end');
    expect(oneLine('a\u0085\u2028b')).toBe('a b');
  });

  it.each(unsafeCharacterCases.filter(([, character]) => character !== '\r'))('storableText replaces %s with U+FFFD', (_, character) => {
    expect(storableText(`a${character}b`)).toBe('a\ufffdb');
  });

  it('storableText keeps tab, line feed and CRLF as an HTTP body has them', () => {
    expect(storableText('a\tb\r\nc\nd')).toBe('a\tb\r\nc\nd');
    expect(storableText(ordinary)).toBe(ordinary);
  });
});
