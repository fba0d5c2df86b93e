import type { LogLevel, ToolLogMessage__Output } from '@platform/proto';
import { manualClock } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createCallNotifications, notificationLimits, type CallNotificationsOptions, type LoggingLevel } from './call-notifications.ts';

interface Sent {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A call's notifications on a manual clock (its clock and its timers), keeping what was sent. */
function notificationsFor(options: Partial<CallNotificationsOptions> = {}) {
  const clock = manualClock();
  const sent: Sent[] = [];
  const notifications = createCallNotifications({
    notify: (notification) => {
      sent.push(notification);
      return Promise.resolve();
    },
    progressToken: 'token-1',
    logLevel: undefined,
    clock,
    timers: clock,
    ...options,
  });
  const progress = (value: number, total?: number, message = '') => {
    notifications.onEvent({ progress: { progress: value, ...(total !== undefined && { total }), message } });
  };
  const logJson = (level: LogLevel, dataJson: string, logger = '') => {
    notifications.onEvent({ log: { level, dataJson, logger } as ToolLogMessage__Output });
  };
  const log = (level: LogLevel, data: unknown, logger = '') => {
    logJson(level, JSON.stringify(data), logger);
  };
  const progressSent = () => sent.filter((one) => one.method === 'notifications/progress').map((one) => one.params.progress);
  const logsSent = () => sent.filter((one) => one.method === 'notifications/message').map((one) => one.params);
  return { clock, sent, notifications, progress, log, logJson, progressSent, logsSent };
}

/** Wire levels as the tool service sends them. */
const wire = (level: LoggingLevel): LogLevel => `LOG_LEVEL_${level.toUpperCase()}` as LogLevel;

describe('progress notifications', () => {
  it('sends progress with the token, its total and its message', () => {
    const { sent, progress } = notificationsFor();
    progress(1, 10, 'Reading devices');
    progress(2);
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 'token-1', progress: 1, total: 10, message: 'Reading devices' } },
      { method: 'notifications/progress', params: { progressToken: 'token-1', progress: 2 } },
    ]);
  });

  it('keeps a numeric progress token as it is', () => {
    const { sent, progress } = notificationsFor({ progressToken: 42 });
    progress(1);
    expect(sent[0]?.params.progressToken).toBe(42);
  });

  it('sends nothing without a progress token', async () => {
    const { sent, progress, notifications } = notificationsFor({ progressToken: undefined });
    progress(1, 10, 'Reading devices');
    await notifications.flush();
    expect(sent).toEqual([]);
  });

  it('sends only growing progress', () => {
    const { progress, progressSent } = notificationsFor();
    progress(1);
    progress(1);
    progress(0.5);
    progress(Number.NaN);
    progress(Number.POSITIVE_INFINITY);
    progress(3);
    expect(progressSent()).toEqual([1, 3]);
  });

  it('leaves out a total that is not finite', () => {
    const { sent, progress } = notificationsFor();
    progress(1, Number.POSITIVE_INFINITY);
    expect(sent[0]?.params).toEqual({ progressToken: 'token-1', progress: 1 });
  });

  it('cleans and clips the message', () => {
    const { sent, progress } = notificationsFor();
    progress(1, undefined, 'Step\u0007 one\u001b[0m of \u202etwo\r\nnext');
    progress(2, undefined, 'y'.repeat(5_000));
    expect(sent[0]?.params.message).toBe('Step one[0m of two\nnext');
    const clipped = sent[1]?.params.message as string;
    expect(clipped).toHaveLength(notificationLimits.maxMessageLength);
    expect(clipped.endsWith('…')).toBe(true);
  });

  it('sends a burst of 10, then holds the newest and sends it when a token refills', () => {
    const { clock, progress, progressSent } = notificationsFor();
    for (let value = 1; value <= 10; value += 1) progress(value);
    progress(11);
    progress(12);
    progress(13);
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(clock.pendingTimers()).toEqual([100]);
    clock.advance(99);
    expect(progressSent()).toHaveLength(10);
    clock.advance(1);
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13]);
    expect(clock.pendingTimers()).toEqual([]);
  });

  it('sends at the refill rate once the burst is spent', () => {
    const { clock, progress, progressSent } = notificationsFor();
    for (let value = 1; value <= 10; value += 1) progress(value);
    clock.advance(100);
    progress(11);
    progress(12);
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    clock.advance(100);
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('sends a held progress once a token refills, even after a progress was sent while an earlier one was held', () => {
    const { clock, progress, progressSent } = notificationsFor();
    for (let value = 1; value <= 10; value += 1) progress(value);
    clock.advance(0.5);
    progress(11); // held: the bucket is empty; a timer is armed for when a token is there
    clock.advance(99.7);
    progress(12); // a token is there before the timer: sent at once, and the held 11 is dropped for it
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]);
    progress(13); // held again: the bucket is empty
    clock.advance(1_000);
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]);
  });

  it('sends the held progress at flush, before flush resolves, and arms nothing after', async () => {
    const { clock, notifications, progress, progressSent } = notificationsFor();
    for (let value = 1; value <= 12; value += 1) progress(value);
    await notifications.flush();
    expect(progressSent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]);
    expect(clock.pendingTimers()).toEqual([]);
    clock.advance(1_000);
    expect(progressSent()).toHaveLength(11);
  });

  it('resolves flush once every notification is sent', async () => {
    const releases: (() => void)[] = [];
    const delivered: string[] = [];
    const { notifications, progress } = notificationsFor({
      notify: (notification) =>
        new Promise<void>((resolve) => {
          releases.push(() => {
            delivered.push(notification.method);
            resolve();
          });
        }),
    });
    progress(1);
    progress(2);
    let flushed = false;
    const flushing = notifications.flush().then(() => {
      flushed = true;
    });
    await Promise.resolve();
    expect(flushed).toBe(false);
    for (const release of releases) release();
    await flushing;
    expect(delivered).toEqual(['notifications/progress', 'notifications/progress']);
  });
});

describe('log notifications', () => {
  it('sends a message at the level asked for and above, with its data and logger', () => {
    const { log, logsSent } = notificationsFor({ logLevel: 'warning' });
    log(wire('info'), { step: 1 }, 'db');
    log(wire('warning'), { step: 2 }, 'db');
    log(wire('emergency'), 'down', '');
    expect(logsSent()).toEqual([
      { level: 'warning', data: { step: 2 }, logger: 'db' },
      { level: 'emergency', data: 'down' },
    ]);
  });

  it('sends every level when debug is asked for', () => {
    const { log, logsSent } = notificationsFor({ logLevel: 'debug' });
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) log(wire(level), level);
    expect(logsSent().map((params) => params.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
  });

  it('sends no message without a level, nor one of no known level', async () => {
    const none = notificationsFor({ logLevel: undefined });
    none.log(wire('emergency'), 'down');
    await none.notifications.flush();
    expect(none.sent).toEqual([]);
    const unknown = notificationsFor({ logLevel: 'debug' });
    unknown.log('LOG_LEVEL_UNSPECIFIED', 'x');
    unknown.log('LOG_LEVEL_VERBOSE' as LogLevel, 'x');
    expect(unknown.sent).toEqual([]);
  });

  it('cleans the data, keys and values at any depth, and the logger name', () => {
    const { log, logsSent } = notificationsFor({ logLevel: 'info' });
    log(wire('info'), { 'ke\u0007y': ['va\u001blue', { 'in\u202ener': 'de\u0000ep' }] }, 'lo\u0007gger\u202e');
    expect(logsSent()).toEqual([{ level: 'info', data: { key: ['value', { inner: 'deep' }] }, logger: 'logger' }]);
  });

  it('clips a long logger name', () => {
    const { log, logsSent } = notificationsFor({ logLevel: 'info' });
    log(wire('info'), 1, 'n'.repeat(500));
    expect((logsSent()[0]?.logger as string).length).toBe(128);
  });

  it('replaces data larger than 16 KiB with a placeholder', () => {
    const { log, logsSent } = notificationsFor({ logLevel: 'info' });
    log(wire('info'), { text: 'x'.repeat(notificationLimits.maxLogDataBytes) });
    log(wire('info'), { text: 'x'.repeat(notificationLimits.maxLogDataBytes - '{"text":""}'.length) });
    expect(logsSent()[0]?.data).toBe('[a log message larger than the gateway passes on]');
    expect(logsSent()[1]?.data).toEqual({ text: 'x'.repeat(notificationLimits.maxLogDataBytes - 11) });
  });

  it('replaces data that is not JSON with a placeholder', () => {
    const { logJson, logsSent } = notificationsFor({ logLevel: 'info' });
    logJson(wire('info'), '{"unfinished":');
    expect(logsSent()[0]?.data).toBe('[a log message that is not JSON]');
  });

  it('replaces data nested deeper than 16 with a placeholder, and passes 16', () => {
    const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : { down: nested(levels - 1) });
    const { log, logsSent } = notificationsFor({ logLevel: 'info' });
    log(wire('info'), nested(17));
    log(wire('info'), nested(16));
    expect(logsSent()[0]?.data).toBe('[a log message nested deeper than the gateway passes on]');
    expect(logsSent()[1]?.data).toEqual(nested(16));
  });

  it('replaces data whose keys collide once cleaned with a placeholder', () => {
    const { logJson, logsSent } = notificationsFor({ logLevel: 'info' });
    logJson(wire('info'), '{"a\\u0007":1,"a":2}');
    expect(logsSent()[0]?.data).toBe('[a log message that cannot be shown]');
  });

  it(`sends a burst of ${notificationLimits.logBurst}, drops the rest, and says how many at flush`, async () => {
    const { log, logsSent, notifications } = notificationsFor({ logLevel: 'info' });
    for (let index = 0; index < 60; index += 1) log(wire('info'), index);
    expect(logsSent()).toHaveLength(50);
    await notifications.flush();
    expect(logsSent()).toHaveLength(51);
    expect(logsSent()[50]).toEqual({
      level: 'notice',
      logger: 'gateway',
      data: '10 log messages of this tool call were dropped (more than 20 a second)',
    });
  });

  it('sends again at the refill rate once the burst is spent', () => {
    const { clock, log, logsSent } = notificationsFor({ logLevel: 'info' });
    for (let index = 0; index < 50; index += 1) log(wire('info'), index);
    log(wire('info'), 'dropped');
    clock.advance(50);
    log(wire('info'), 'sent');
    log(wire('info'), 'dropped too');
    expect(
      logsSent()
        .slice(50)
        .map((params) => params.data),
    ).toEqual(['sent']);
  });

  it('says nothing of dropped messages when the level asked for is above notice', async () => {
    const { log, logsSent, notifications } = notificationsFor({ logLevel: 'warning' });
    for (let index = 0; index < 60; index += 1) log(wire('error'), index);
    await notifications.flush();
    expect(logsSent()).toHaveLength(50);
  });

  it('says it once, and not again at a later flush', async () => {
    const { log, logsSent, notifications } = notificationsFor({ logLevel: 'notice' });
    for (let index = 0; index < 51; index += 1) log(wire('error'), index);
    await notifications.flush();
    await notifications.flush();
    expect(logsSent().filter((params) => params.logger === 'gateway')).toHaveLength(1);
  });
});

describe('a failing notify', () => {
  it('does not make flush reject', async () => {
    let calls = 0;
    const { notifications, progress, log } = notificationsFor({
      logLevel: 'info',
      notify: () => {
        calls += 1;
        return Promise.reject(new Error('the client went away'));
      },
    });
    progress(1);
    log(wire('info'), 'x');
    await expect(notifications.flush()).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
