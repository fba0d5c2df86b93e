// When a failed delivery is tried again: a fixed schedule of growing delays with jitter, an
// endpoint's Retry-After honoured within it, and the duration parsing the settings use to change it.

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

/**
 * The delay after each failed attempt, first attempt immediate: 8 attempts over about 27.6 hours.
 * This is Svix's published schedule (https://docs.svix.com/retries: immediately, 5 seconds, 5 minutes,
 * 30 minutes, 2 hours, 5 hours, 10 hours, 10 hours), which rides out a deploy, an outage of an
 * afternoon, and a night.
 */
export const defaultRetrySchedule: readonly number[] = Object.freeze([5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 10 * hour]);

/** The default jitter: each delay is moved by up to ±20% so endpoints that failed together are not retried together. */
export const defaultJitter = 0.2;

/** A Retry-After beyond this is taken as this (it is clamped to the schedule's longest step anyway). */
export const maxRetryAfterMs = day;

const dayNames = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const longDayNames = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = `(${monthNames.join('|')})`;
const time = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 section 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept.
const imfFixdate = new RegExp(`^${dayNames}, (\\d{2}) ${month} (\\d{4}) ${time} GMT$`);
const rfc850 = new RegExp(`^${longDayNames}, (\\d{2})-${month}-(\\d{2}) ${time} GMT$`);
const asctime = new RegExp(`^${dayNames} ${month} ( \\d|\\d{2}) ${time} (\\d{4})$`);

function utc(year: number, monthName: string, dayOfMonth: number, hours: number, minutes: number, seconds: number): number | undefined {
  const monthIndex = monthNames.indexOf(monthName);
  const at = Date.UTC(year, monthIndex, dayOfMonth, hours, minutes, seconds);
  const date = new Date(at);
  // Date.UTC rolls 31 Feb over into March: such a date is garbage, not a time.
  const exact =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === monthIndex &&
    date.getUTCDate() === dayOfMonth &&
    date.getUTCHours() === hours &&
    date.getUTCMinutes() === minutes &&
    date.getUTCSeconds() === seconds;
  return exact ? at : undefined;
}

function parseHttpDate(value: string, now: Date): number | undefined {
  let match = imfFixdate.exec(value);
  if (match) {
    const [, d = '', m = '', y = '', hh = '', mm = '', ss = ''] = match;
    return utc(Number(y), m, Number(d), Number(hh), Number(mm), Number(ss));
  }
  match = rfc850.exec(value);
  if (match) {
    const [, d = '', m = '', yy = '', hh = '', mm = '', ss = ''] = match;
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 section 5.6.7).
    const thisYear = now.getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(yy);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m, Number(d), Number(hh), Number(mm), Number(ss));
  }
  match = asctime.exec(value);
  if (match) {
    const [, m = '', d = '', hh = '', mm = '', ss = '', y = ''] = match;
    return utc(Number(y), m, Number(d.trim()), Number(hh), Number(mm), Number(ss));
  }
  return undefined;
}

/**
 * A Retry-After header as milliseconds from `now`: delta-seconds or an HTTP-date (a date already past
 * is 0). Anything else (negative, fractional, garbage, absent) is undefined; values are capped at a day.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * second, maxRetryAfterMs);
  const at = parseHttpDate(text, now);
  if (at === undefined) return undefined;
  return Math.min(Math.max(at - now.getTime(), 0), maxRetryAfterMs);
}

export interface RetryDelayInput {
  /** How many attempts have failed so far, this one included (1 after the first attempt failed). */
  readonly failedAttempts: number;
  /** The delay after each failed attempt; its length is the number of retries. */
  readonly schedule?: readonly number[];
  /** From the failed response's Retry-After. */
  readonly retryAfterMs?: number | undefined;
  /** How far each delay may move, as a fraction of it from 0 to 1: 0.2 is ±20%. */
  readonly jitter?: number;
  /** A number in [0, 1); Math.random by default. */
  readonly random?: () => number;
}

/**
 * How long to wait before the next attempt, or undefined when the schedule is spent (the delivery has
 * failed for good). The scheduled step, moved by the jitter, or the endpoint's Retry-After when that is
 * longer; a Retry-After is never followed past the schedule's longest step.
 */
export function nextRetryDelay(input: RetryDelayInput): number | undefined {
  const { failedAttempts, schedule = defaultRetrySchedule, retryAfterMs, jitter = defaultJitter, random = Math.random } = input;
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1)
    throw new RangeError(`failedAttempts must be a whole number of at least 1 (got ${failedAttempts})`);
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be from 0 to 1 (got ${jitter})`);
  const step = schedule[failedAttempts - 1];
  if (step === undefined) return undefined;
  const jittered = step * (1 + jitter * (2 * random() - 1));
  const longestStep = Math.max(...schedule);
  const asked = retryAfterMs === undefined ? 0 : Math.min(Math.max(retryAfterMs, 0), longestStep);
  return Math.round(Math.max(jittered, asked));
}

const unitMs: Readonly<Record<string, number>> = { ms: 1, s: second, m: minute, h: hour, d: day };
const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/** A duration such as `500ms`, `30s`, `5m`, `2h`, `1.5d`, as whole milliseconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') throw new TypeError('a duration is empty (give a number and a unit, e.g. 30s)');
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) throw new TypeError(`${quoted(trimmed)} needs a unit: ms, s, m, h or d (e.g. 30s)`);
  const match = durationPattern.exec(trimmed);
  const unit = match?.[2] === undefined ? undefined : unitMs[match[2]];
  if (match === null || unit === undefined) throw new TypeError(`${quoted(trimmed)} is not a duration (a number and a unit: ms, s, m, h or d, e.g. 30s)`);
  const ms = Math.round(Number(match[1]) * unit);
  if (!Number.isSafeInteger(ms)) throw new TypeError(`${quoted(trimmed)} is too long`);
  return ms;
}

/** A comma-separated list of durations (`5s,5m,30m,2h`), each as whole milliseconds; a bad entry is named by its position. */
export function parseDurationList(text: string): number[] {
  if (text.trim() === '') throw new TypeError('the list is empty (give durations separated by commas, e.g. 5s,5m,30m,2h)');
  return text.split(',').map((entry, index) => {
    try {
      return parseDuration(entry);
    } catch (error) {
      throw new TypeError(`entry ${index + 1}: ${(error as Error).message}`, { cause: error });
    }
  });
}
