// The one place that says which characters text may not carry across an edge of the stack, and
// what each edge does with them: refuse (input checks, registry fields), clean (tool results, text
// and structured content alike; lines repeated in messages and logs), or replace (text stored from
// the network). Two copies of a character class drift, and the drift is where the holes are, so
// every edge takes its class from here.
//
// The classes, from the strictest rule the stack had (the input checks):
// - controls: Unicode Cc, that is C0 (NUL, escapes, bells), DEL and C1. PostgreSQL refuses NUL;
//   terminals and logs misread the rest. Multi-line text keeps tab and line feed.
// - text-direction controls: ALM, LRM, RLM, the embeddings, overrides and isolates that make text
//   read otherwise than it is stored ("Trojan Source").
// - line and paragraph separators (U+2028, U+2029): line breaks some readers see and others do not.
// - unpaired surrogates: not Unicode text; encoders replace or refuse them, each its own way.
// Other format characters stay (the zero-width joiner builds emoji), except in addresses.

/** The text-direction controls: ALM, LRM, RLM, the embeddings and overrides, the isolates. */
const directionControls = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** The line and paragraph separators. */
const separators = '\\u2028\\u2029';
/** Controls a multi-line text may not hold: all of Cc but tab and line feed. */
const layoutlessControls = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f';

/** What single-line text may not hold (tab and line feed included). */
const unsafeInLine = new RegExp(`[\\p{Cc}${directionControls}${separators}]`, 'u');
/** What multi-line text may not hold: the same, but tab and line feed are layout. */
const unsafeInLines = new RegExp(`[${layoutlessControls}${directionControls}${separators}]`, 'u');
/** Whitespace, controls and every format character: what an address a person reads must not hold. */
const invisible = /[\s\p{Cc}\p{Cf}]/u;

/** True when `text` is plain single-line text: no control character (tab and line feed included), no text-direction control or separator, no unpaired surrogate. */
export function isPlainText(text: string): boolean {
  return !unsafeInLine.test(text) && text.isWellFormed();
}

/** True when `text` is safe multi-line text: as `isPlainText`, but tab and line feed allowed. */
export function isSafeText(text: string): boolean {
  return !unsafeInLines.test(text) && text.isWellFormed();
}

/** True when `text` holds whitespace, a control, a format character (zero-width, bidi) or an unpaired surrogate: what an address must not hold. */
export function hasInvisibleCharacters(text: string): boolean {
  return invisible.test(text) || !text.isWellFormed();
}

const anyControl = /\p{Cc}/u;
const layoutlessControl = new RegExp(`[${layoutlessControls}]`, 'u');
const misleading = new RegExp(`[${directionControls}${separators}]`, 'u');

/** True when `text` holds a control character; with `multiline`, tab and line feed do not count. */
export function hasControlCharacters(text: string, options: { multiline?: boolean } = {}): boolean {
  return (options.multiline ? layoutlessControl : anyControl).test(text);
}

/** True when `text` holds a text-direction control or a line or paragraph separator. */
export function hasDirectionControls(text: string): boolean {
  return misleading.test(text);
}

/** The messages, safe to show (they never repeat the text), of each way a text is refused. */
export const unsafeTextMessages = {
  controls: 'must not contain control characters',
  direction: 'must not contain text-direction controls or line separators',
  notWellFormed: 'must be well-formed Unicode (no unpaired surrogates)',
} as const;

/** Why a text is refused (a key of `unsafeTextMessages`); undefined when it is safe. */
export function unsafeTextProblem(text: string, options: { multiline?: boolean } = {}): keyof typeof unsafeTextMessages | undefined {
  if (hasControlCharacters(text, options)) return 'controls';
  if (hasDirectionControls(text)) return 'direction';
  if (!text.isWellFormed()) return 'notWellFormed';
  return undefined;
}

const removedFromLines = new RegExp(`[${layoutlessControls}${directionControls}]`, 'gu');
const separatorRun = new RegExp(`[${separators}]`, 'gu');

/**
 * Multi-line text made safe to show: CRLF and the separators become line feeds; the other controls
 * (tab and line feed stay) and the text-direction controls go; an unpaired surrogate becomes U+FFFD.
 * Nothing else changes, so `isSafeText(shownText(t))` always holds.
 */
export function shownText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(separatorRun, '\n').replace(removedFromLines, '').toWellFormed();
}

/** True when `shownText` would change `text`. */
export function needsCleaning(text: string): boolean {
  return !isSafeText(text);
}

const lineBreaking = new RegExp(`[\\p{Cc}${separators}]+`, 'gu');
const directionRun = new RegExp(`[${directionControls}]`, 'gu');

/** One line of text safe to repeat in a message or a log: runs of controls and line breaks become one space, text-direction controls go, an unpaired surrogate becomes U+FFFD; trimmed. */
export function oneLine(text: string): string {
  return text.replace(lineBreaking, ' ').replace(directionRun, '').toWellFormed().trim();
}

const unstorable = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${directionControls}${separators}]`, 'gu');

/**
 * Text from an endpoint or the network, fit for any database's text column and any log: every
 * character of the multi-line class but carriage return (an HTTP body's CRLF is kept as sent), and
 * every unpaired surrogate, becomes U+FFFD, so what was there stays visible.
 */
export function storableText(text: string): string {
  return text.replace(unstorable, '\ufffd').toWellFormed();
}
