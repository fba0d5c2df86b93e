// Text a tool service sends for an agent and a person to read, made safe to show, by the stack's one
// text-safety module (@platform/tool-sdk/internal's shownText: controls but tab and newline, the
// text-direction controls and unpaired surrogates go; CRLF and line separators become newlines).
// Its text and its structured content get the same treatment: shownJson applies shownText to every
// string of a JSON value, object keys included. The registry refuses a title or description holding
// anything shownText would change (isSafeText), results are cleaned of it.
import { hasInvisibleCharacters, needsCleaning, shownText } from '@platform/tool-sdk/internal';

export { shownText };

/** True when `text` holds something `shownText` would remove or change (a newline and tab aside). */
export const hasUnshowable: (text: string) => boolean = needsCleaning;

/** True when `address` (a URI, a link) holds a character a person would not see, or would misread. */
export const hasHiddenCharacters: (address: string) => boolean = hasInvisibleCharacters;

/** Two keys of one object that read the same once shown: an object that would lose a value if shown. */
export class ShownKeyCollision extends Error {
  override readonly name = 'ShownKeyCollision';
  readonly code = 'SHOWN_KEY_COLLISION';
}

/** True when some string of `value`, an object key included, holds something `shownText` changes. */
function needsShowing(value: unknown): boolean {
  if (typeof value === 'string') return needsCleaning(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(needsShowing);
  for (const [key, item] of Object.entries(value)) if (needsCleaning(key) || needsShowing(item)) return true;
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
