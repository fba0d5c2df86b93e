import { closedPort } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { requestFailure } from './request-failure.ts';

const failureOf = (promise: Promise<unknown>) => promise.then(() => 'no failure', requestFailure);

describe('why a request failed', () => {
  it('reads the cause fetch keeps to itself: a refused connection, a bad port', async () => {
    const port = await closedPort();
    expect(await failureOf(fetch(`http://127.0.0.1:${port}/`))).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(await failureOf(fetch('http://127.0.0.1:6000/'))).toBe('bad port: fetch refuses to connect to this port');
  });

  it('says a timeout is one, and keeps the words of a wrapper that adds some', () => {
    expect(requestFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe('no answer in time');
    const socket = Object.assign(new Error(''), { code: 'ECONNRESET' });
    expect(requestFailure(new Error('Error POSTing to endpoint', { cause: new TypeError('fetch failed', { cause: socket }) }))).toBe(
      'Error POSTing to endpoint: ECONNRESET',
    );
    expect(requestFailure(new TypeError('fetch failed'))).toBe('fetch failed');
    expect(requestFailure('x')).toBe('x');
    expect(requestFailure(undefined)).toBe('failed without a reason');
  });
});
