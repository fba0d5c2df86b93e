// What a running tool reports on the way, passed to the MCP client as it happens: progress as
// `notifications/progress` (only when the client gave a progress token; a growing value; a few a
// second, the newest kept when more come), log messages as `notifications/message` (only at the
// level the client asked for or above; a bounded rate, with one line saying how many were dropped).
// Every text is cleaned to show and bounded. Whatever was held back is sent before the result.
import type { ProgressToken } from '@modelcontextprotocol/server';
import type { Clock, Timers } from '@platform/tool-sdk';
import { clip, nestsDeeperThan, systemClock, systemTimers } from '@platform/tool-sdk/internal';
import type { ToolCallEvent } from '../tool-services/index.ts';
import { shownJson, shownText } from '../tool-results/shown-text.ts';

/** MCP's log levels, lowest first. */
export const loggingLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** One of MCP's log levels. */
export type LoggingLevel = (typeof loggingLevels)[number];

/** Rates and sizes: far above what a person reads, far below what floods a client. */
export const notificationLimits = Object.freeze({
  progressBurst: 10,
  progressPerSecond: 10,
  logBurst: 50,
  logPerSecond: 20,
  maxMessageLength: 1_024,
  maxLogDataBytes: 16 * 1024,
  maxLogDataNesting: 16,
});

export interface CallNotificationsOptions {
  /** Sends one notification related to the call's request. */
  readonly notify: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>;
  /** The client's progress token; without one no progress is sent. */
  readonly progressToken: ProgressToken | undefined;
  /** The lowest level the client asked for; undefined sends no log message. */
  readonly logLevel: LoggingLevel | undefined;
  /**
   * The highest progress sent for the token so far, shared by the rounds of one request: on
   * 2025-11-25 the tool runs again in the same request after a question and reports again from its
   * start, and progress must only grow (MCP).
   */
  readonly progressSent?: { last: number };
  readonly clock?: Clock;
  readonly timers?: Timers;
}

export interface CallNotifications {
  /** One event of the tool's, as it arrives. */
  onEvent(event: ToolCallEvent): void;
  /** Sends what was held back; resolves once every notification is sent. Call it before answering. */
  flush(): Promise<void>;
}

/** A token bucket: `burst` at once, refilled at `perSecond`. */
function bucket(burst: number, perSecond: number, clock: Clock) {
  let tokens = burst;
  let at = clock();
  return {
    take(): boolean {
      const now = clock();
      tokens = Math.min(burst, tokens + ((now - at) / 1000) * perSecond);
      at = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    /** Milliseconds until one token is there. */
    wait(): number {
      return Math.max(0, Math.ceil(((1 - tokens) / perSecond) * 1000));
    },
  };
}

const levelRank = new Map<string, number>(loggingLevels.map((level, index) => [level, index]));

/** The MCP level of a wire level (`LOG_LEVEL_WARNING`), or undefined. */
function levelOf(wire: string): LoggingLevel | undefined {
  const level = wire.replace(/^LOG_LEVEL_/, '').toLowerCase() as LoggingLevel;
  return levelRank.has(level) ? level : undefined;
}

/** A log message's data, parsed, bounded and cleaned to show; a string saying why when it cannot be shown. */
function shownData(dataJson: string): unknown {
  if (Buffer.byteLength(dataJson) > notificationLimits.maxLogDataBytes) return '[a log message larger than the gateway passes on]';
  let data: unknown;
  try {
    data = JSON.parse(dataJson);
  } catch {
    return '[a log message that is not JSON]';
  }
  if (nestsDeeperThan(data, notificationLimits.maxLogDataNesting)) return '[a log message nested deeper than the gateway passes on]';
  try {
    return shownJson(data);
  } catch {
    return '[a log message that cannot be shown]';
  }
}

/** The notifications of one call. */
export function createCallNotifications(options: CallNotificationsOptions): CallNotifications {
  const { notify, progressToken, logLevel, clock = systemClock, timers = systemTimers, progressSent = { last: Number.NEGATIVE_INFINITY } } = options;
  const sending: Promise<void>[] = [];
  const send = (method: string, params: Record<string, unknown>) => {
    // A client gone is the call's own problem, told elsewhere: a failed notification is not the tool's.
    sending.push(notify({ method, params }).catch(() => undefined));
  };
  const progressBucket = bucket(notificationLimits.progressBurst, notificationLimits.progressPerSecond, clock);
  const logBucket = bucket(notificationLimits.logBurst, notificationLimits.logPerSecond, clock);
  let heldProgress: Record<string, unknown> | undefined;
  let cancelTimer: (() => void) | undefined;
  let droppedLogs = 0;
  const minimum = logLevel === undefined ? undefined : levelRank.get(logLevel);

  const sendHeld = () => {
    cancelTimer = undefined;
    if (heldProgress === undefined) return;
    send('notifications/progress', heldProgress);
    heldProgress = undefined;
  };

  const onProgress = (progress: number, total: number | undefined, message: string) => {
    if (progressToken === undefined || !Number.isFinite(progress) || progress <= progressSent.last) return;
    progressSent.last = progress;
    const text = clip(shownText(message), notificationLimits.maxMessageLength);
    const params = {
      progressToken,
      progress,
      ...(total !== undefined && Number.isFinite(total) && { total }),
      ...(text !== '' && { message: text }),
    };
    if (progressBucket.take()) {
      cancelTimer?.();
      cancelTimer = undefined;
      heldProgress = undefined;
      send('notifications/progress', params);
      return;
    }
    heldProgress = params;
    cancelTimer ??= timers.after(progressBucket.wait(), () => {
      if (progressBucket.take()) sendHeld();
      else cancelTimer = undefined;
    });
  };

  const onLog = (wireLevel: string, dataJson: string, loggerName: string) => {
    const level = levelOf(wireLevel);
    if (minimum === undefined || level === undefined || (levelRank.get(level) ?? 0) < minimum) return;
    if (!logBucket.take()) {
      droppedLogs += 1;
      return;
    }
    const name = clip(shownText(loggerName), 128);
    send('notifications/message', { level, data: shownData(dataJson), ...(name !== '' && { logger: name }) });
  };

  return {
    onEvent(event) {
      if ('progress' in event) onProgress(event.progress.progress, event.progress.total, event.progress.message);
      else onLog(event.log.level, event.log.dataJson, event.log.logger);
    },
    async flush() {
      cancelTimer?.();
      sendHeld();
      if (droppedLogs > 0 && minimum !== undefined && minimum <= (levelRank.get('notice') ?? 0)) {
        send('notifications/message', {
          level: 'notice',
          logger: 'gateway',
          data: `${droppedLogs} log messages of this tool call were dropped (more than ${notificationLimits.logPerSecond} a second)`,
        });
      }
      droppedLogs = 0;
      await Promise.all(sending.splice(0));
    },
  };
}
