// A pino destination that keeps every line in memory, so a test can read what was logged and scan
// it for secrets.
import { Writable } from 'node:stream';

/** What a logger wrote, line by line, for assertions and secret scans. */
export interface CapturedLogs {
  /** Pass as a logger's `destination`. */
  readonly destination: Writable;
  /** Every line written so far, as written. */
  readonly lines: string[];
  /** Everything written so far, as one string. */
  text(): string;
}

/** A logger whose lines are kept for the test to read. */
export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { destination, lines, text: () => lines.join('') };
}
