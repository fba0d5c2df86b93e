// The regular expressions of JSON Schema's `pattern` and `patternProperties`, run by RE2 (re2js)
// rather than JavaScript's backtracking engine: time linear in the text whatever the pattern, so a
// schema's author cannot hold the event loop with a pattern like ^(a+)+$ (the gateway checks the
// output schemas of every app's tools; a tool service checks callers' arguments).
//
// A pattern means what it means in JavaScript (ECMA-262 with the u flag, as JSON Schema says):
// - it must compile there too (compiled only, never run): RE2's own syntax, (?i), \A, [[:alpha:]],
//   \Q...\E, is refused, as are lookarounds and backreferences, which RE2 has not;
// - `.`, `\s` and `\S` are rewritten to JavaScript's sets (RE2's `.` takes \r, U+2028 and U+2029, and
//   its `\s` is ASCII only); `\S` inside a class, which RE2 cannot say, is refused.
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** JavaScript's \s, as the members of a class. */
const whitespace = '\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** What JavaScript's `.` takes: anything but a line terminator. */
const anyButLineEnd = '[^\\n\\r\\x{2028}\\x{2029}]';

/** `pattern` (a JavaScript pattern that compiles with the u flag) in RE2's syntax, with JavaScript's meaning of `.`, `\s` and `\S`. */
export function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? whitespace : `[${whitespace}]`;
      else if (next === 'S') {
        if (inClass) throw new SyntaxError('\\S inside a character class cannot be checked in linear time; write the class another way');
        out += `[^${whitespace}]`;
      } else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      // A `]` or `^]` right after the opening is a member in RE2, the end of an empty class in JavaScript.
      if (pattern[i + 1] === ']' || (pattern[i + 1] === '^' && pattern[i + 2] === ']'))
        throw new SyntaxError('an empty character class ([] or [^]) is not checked');
      continue;
    }
    out += char === '.' ? anyButLineEnd : char;
  }
  return out;
}

/**
 * Ajv's `code.regExp`: each pattern compiled once by RE2; `test` finds it anywhere in the text, as
 * RegExp#test does. Ajv keys the compiled patterns of a schema by their `toString()`, so it is the
 * pattern's. (`code` names the engine in standalone code only, which is not generated here.)
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    // JavaScript's own syntax check: compiled, never run.
    new RegExp(pattern, 'u');
    const compiled = RE2JS.compile(RE2JS.translateRegExp(toRe2(pattern)));
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
  },
  { code: 'linearRegExp' },
);
