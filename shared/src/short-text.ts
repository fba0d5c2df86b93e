// Text a message, a status or a log line repeats from elsewhere, kept short: at most a given length
// with an ellipsis where it was cut, and on one line, so no input can make it long or forge a line.

/** At most `maxLength` characters: cut to `maxLength - 1` and an ellipsis when longer. */
export function clip(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

/** Runs of control characters (line breaks among them) as one space each, trimmed. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
