// One character of each class the stack's text-safety module (@platform/tool-sdk/internal's
// text-safety.ts) keeps out of text, for the tests of every edge: each edge is fed the same list,
// so an edge whose rule drifts from the others fails its test.

/** Each character no edge lets through as it is, by name: controls (C0, DEL, C1), text-direction controls, separators, an unpaired surrogate. */
export const unsafeCharacters: Readonly<Record<string, string>> = Object.freeze({
  NUL: '\u0000',
  'C0 SOH': '\u0001',
  'C0 ESC (terminal escapes)': '\u001b',
  'carriage return alone': '\r',
  DEL: '\u007f',
  'C1 NEL': '\u0085',
  'C1 CSI': '\u009b',
  'arabic letter mark': '\u061c',
  'left-to-right mark': '\u200e',
  'right-to-left mark': '\u200f',
  'left-to-right embedding': '\u202a',
  'right-to-left override': '\u202e',
  'left-to-right isolate': '\u2066',
  'pop directional isolate': '\u2069',
  'line separator': '\u2028',
  'paragraph separator': '\u2029',
  'unpaired surrogate': '\ud800',
});

/** The list as `[name, character]` pairs, for `it.each`. */
export const unsafeCharacterCases: readonly (readonly [string, string])[] = Object.entries(unsafeCharacters);

/** Characters multi-line text keeps (layout), which single-line text refuses. */
export const layoutCharacters: Readonly<Record<string, string>> = Object.freeze({ tab: '\t', 'line feed': '\n' });
