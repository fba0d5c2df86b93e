// Text a tool service sends for an agent and a person to read, made safe to show: C0 and C1
// controls (terminal escapes, NUL, bells) go, except tab and newline; a carriage return before a
// newline goes with it; the text-direction controls that make text read otherwise than it is stored
// ("Trojan Source": marks, embeddings, overrides, isolates) go; line and paragraph separators
// become newlines. Nothing else is changed.

// eslint-disable-next-line no-control-regex -- control characters are what is removed
const unshowable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

export function shownText(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(unshowable, '');
}
