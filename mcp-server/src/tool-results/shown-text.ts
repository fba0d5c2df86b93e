// Text a tool service sends for an agent and a person to read, made safe to show: C0 and C1
// controls (terminal escapes, NUL, bells) go, except tab and newline; a carriage return before a
// newline goes with it; the text-direction controls that make text read otherwise than it is stored
// ("Trojan Source": marks, embeddings, overrides, isolates) go; line and paragraph separators
// become newlines. Nothing else is changed. The one place the gateway says what a tool service may
// not show: the registry refuses a title or description holding any of it, results are cleaned of it.

// eslint-disable-next-line no-control-regex -- control characters are what is removed
const unshowable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const separators = /[\u2028\u2029]/;

export function shownText(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(unshowable, '');
}

/** True when `text` holds something `shownText` would remove or change (a newline and tab aside). */
export function hasUnshowable(text: string): boolean {
  unshowable.lastIndex = 0;
  return unshowable.test(text) || separators.test(text);
}

/** Whitespace, controls and invisible format characters (zero-width, soft hyphen, bidi): what an address a person reads must not hold. */
const hidden = /[\s\p{Cc}\p{Cf}]/u;

/** True when `address` (a URI, a link) holds a character a person would not see, or would misread. */
export function hasHiddenCharacters(address: string): boolean {
  return hidden.test(address);
}

/** Two keys of one object that read the same once shown: an object that would lose a value if shown. */
export class ShownKeyCollision extends Error {
  override readonly name = 'ShownKeyCollision';
}

/** True when some string of `value`, an object key included, holds something `shownText` changes. */
function needsShowing(value: unknown): boolean {
  if (typeof value === 'string') return hasUnshowable(value) || value.includes('\r\n');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(needsShowing);
  for (const [key, item] of Object.entries(value)) if (hasUnshowable(key) || key.includes('\r\n') || needsShowing(item)) return true;
  return false;
}

/**
 * A parsed JSON value with every string in it, object keys included, made safe to show: the value
 * itself when nothing in it changes (the common case, read without a copy). Recursive: call it only
 * on values whose nesting is already known to be bounded. Throws ShownKeyCollision when two keys of
 * one object become the same, rather than dropping a value.
 */
export function shownJson(value: unknown): unknown {
  return needsShowing(value) ? shownCopy(value) : value;
}

function shownCopy(value: unknown): unknown {
  if (typeof value === 'string') return shownText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(shownCopy);
  // Entries, not assignments: a key "__proto__" stays a key (as JSON.parse made it), never the prototype.
  const keys = new Set<string>();
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const shownKey = shownText(key);
    if (keys.has(shownKey)) throw new ShownKeyCollision(`two keys read as ${JSON.stringify(shownKey.slice(0, 64))} once cleaned`);
    keys.add(shownKey);
    entries.push([shownKey, shownCopy(item)]);
  }
  return Object.fromEntries(entries);
}
