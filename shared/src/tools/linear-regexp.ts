// The regular expressions of JSON Schema's `pattern` and `patternProperties`, run by RE2 (re2js)
// rather than JavaScript's backtracking engine: time linear in the text whatever the pattern, so a
// schema's author cannot hold the event loop with a pattern like ^(a+)+$ (the gateway checks the
// output schemas of every app's tools; a tool service checks callers' arguments). RE2 has no
// lookarounds and no backreferences: a pattern with them does not compile, and says so.
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * Ajv's `code.regExp`: each pattern compiled once by RE2; `test` finds it anywhere in the text, as
 * RegExp#test does. Ajv keys the compiled patterns of a schema by their `toString()`, so it is the pattern's.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
  },
  { code: 'linearRegExp' },
);
