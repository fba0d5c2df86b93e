import { describe, expect, it } from 'vitest';
import { isLoopbackHost, localOrigin } from './loopback.ts';

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['[::1]', true],
    ['127.999.999.999', false],
    ['0.0.0.0', false],
    ['10.0.0.5', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('localOrigin', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:4100'],
    ['localhost', 'http://localhost:4100'],
    ['0.0.0.0', 'http://127.0.0.1:4100'],
    ['::', 'http://[::1]:4100'],
    ['[::]', 'http://[::1]:4100'],
    ['::1', 'http://[::1]:4100'],
    ['[::1]', 'http://[::1]:4100'],
    ['10.0.0.5', 'http://10.0.0.5:4100'],
  ])('names a server bound to %s as %s, an address a browser on this machine can open', (host, origin) => {
    expect(localOrigin(host, 4100)).toBe(origin);
    expect(URL.canParse(origin)).toBe(true);
  });
});
