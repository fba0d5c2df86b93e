import { EventEmitter } from 'node:events';
import { createLogger, PlatformError } from '@platform/tool-sdk';
import type { CallerCheck, CallerCheckResult } from '@platform/tool-sdk/internal';
import { manualClock } from '@platform/tool-sdk/testing';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createStreamGuard } from './stream-guard.ts';

/** A response that records how it ended; `destroy` closes it, as a socket's does. */
function response() {
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    statusCode: 200,
    destroy() {
      if (res.destroyed) return res;
      res.destroyed = true;
      res.emit('close');
      return res;
    },
    set: () => res,
    status(code: number) {
      res.statusCode = code;
      return res;
    },
    json: () => res,
  });
  return res;
}

const request = (callerId: string, expiresAtSeconds?: number) => {
  const payload = Buffer.from(JSON.stringify(expiresAtSeconds === undefined ? {} : { exp: expiresAtSeconds })).toString('base64url');
  const token = `e30.${payload}.sig`;
  return { caller: { id: callerId }, auth: { token }, headers: { authorization: `Bearer ${token}` } } as unknown as Request;
};

function guard(options: { maxPerCaller?: number; maxStreams?: number; check?: CallerCheck } = {}) {
  const clock = manualClock(1_000_000);
  const answers: CallerCheckResult[] = [];
  const check: CallerCheck = options.check ?? (() => Promise.resolve(answers.shift() ?? ({ ok: true } as CallerCheckResult)));
  const streams = createStreamGuard({
    maxPerCaller: options.maxPerCaller ?? 2,
    maxStreams: options.maxStreams ?? 10,
    recheckMs: 60_000,
    checkCaller: check,
    logger: createLogger({ name: 'test', level: 'silent' }),
    clock,
    timers: clock,
  });
  return { streams, clock, answers };
}

describe('the stream guard', () => {
  it('ends a person’s oldest stream when they open one past their bound, and no one else’s', () => {
    const { streams } = guard();
    const [first, second, third, other] = [response(), response(), response(), response()];
    for (const [res, who] of [
      [first, 'u-a'],
      [second, 'u-a'],
      [other, 'u-b'],
      [third, 'u-a'],
    ] as const) {
      expect(streams.admit(request(who), res as unknown as Response, 'listen')).toBe(true);
    }

    expect([first.destroyed, second.destroyed, third.destroyed, other.destroyed]).toEqual([true, false, false, false]);
    expect(streams.open).toEqual({ get: 0, listen: 3 });
  });

  it('answers 503 past the bound over everyone', () => {
    const { streams } = guard({ maxStreams: 1 });
    streams.admit(request('u-a'), response() as unknown as Response, 'get');
    const refused = response();

    expect(streams.admit(request('u-b'), refused as unknown as Response, 'get')).toBe(false);
    expect(refused.statusCode).toBe(503);
  });

  it('ends a stream when its token expires', () => {
    const { streams, clock } = guard();
    const res = response();
    streams.admit(request('u-a', clock() / 1000 + 30), res as unknown as Response, 'get');

    clock.advance(29_999);
    expect(res.destroyed).toBe(false);
    clock.advance(1);
    expect(res.destroyed).toBe(true);
    expect(streams.open).toEqual({ get: 0, listen: 0 });
  });

  it('ends a stream whose token a re-check refuses, and keeps one through a platform outage', async () => {
    let answer: () => Promise<CallerCheckResult> = () => Promise.reject(new PlatformError('PLATFORM_UNAVAILABLE'));
    const { streams, clock } = guard({ check: () => answer() });
    const res = response();
    streams.admit(request('u-a', clock() / 1000 + 3_600), res as unknown as Response, 'listen');

    clock.advance(60_000);
    // The re-check answers on a later turn of the event loop; nothing else is waited for.
    await new Promise((resolve) => setImmediate(resolve));
    expect(res.destroyed).toBe(false);

    answer = () => Promise.resolve({ ok: false, error: 'invalid_token', description: 'revoked' } as CallerCheckResult);
    clock.advance(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(res.destroyed).toBe(true);
  });
});
