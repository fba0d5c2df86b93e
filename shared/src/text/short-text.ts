// Text a message, a status or a log line repeats from elsewhere, kept short: at most a given length
// with an ellipsis where it was cut. Putting it on one line is text-safety.ts's `oneLine`.

/** At most `maxLength` characters: cut to `maxLength - 1` and an ellipsis when longer. */
export function clip(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}
