// Finding a key given twice in one object of a JSON text. JSON.parse keeps the last one silently
// and a reviver sees each key once, so the keys are read from the text itself.

/** JSON's four whitespace characters. */
const whitespace = new Set([' ', '\t', '\n', '\r']);

/**
 * The first key that appears twice in the same object (compared after unescaping, so "X-A" and
 * "X\u002dA" are the same key), or undefined. `text` must already be valid JSON (JSON.parse took
 * it): this only tells strings apart from structure and keys from values, it does not validate.
 */
export function firstDuplicateKey(text: string): string | undefined {
  /** The keys seen in each open object, innermost last; undefined for an open array. */
  const open: (Set<string> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{') open.push(new Set());
    else if (char === '[') open.push(undefined);
    else if (char === '}' || char === ']') open.pop();
    else if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return undefined; // an unterminated string: not JSON, nothing to tell
      let next = end + 1;
      while (whitespace.has(text[next] ?? '')) next++;
      const keys = open.at(-1);
      if (text[next] === ':' && keys !== undefined) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
    }
  }
  return undefined;
}
