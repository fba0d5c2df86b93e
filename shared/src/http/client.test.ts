import { describe, expect, it } from 'vitest';
import { createHttpClient, endpoint } from './client.ts';
import { listen, platformFailure } from '../testing/index.ts';

describe('createHttpClient', () => {
  it('sends a GET again, once, when the connection drops under it (a kept-alive socket the server closed)', async () => {
    let requests = 0;
    const server = await listen((req, res) => {
      requests += 1;
      if (requests === 1) req.socket.destroy();
      else res.end('{"ok":true}');
    });
    try {
      const response = await createHttpClient({ timeoutMs: 2_000 }).get(endpoint(server.url, 'api/me'), {});
      expect(await response.json()).toEqual({ ok: true });
      expect(requests).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('gives up after the second drop: the platform is unavailable', async () => {
    let requests = 0;
    const server = await listen((req) => {
      requests += 1;
      req.socket.destroy();
    });
    try {
      const error = await platformFailure(createHttpClient({ timeoutMs: 2_000 }).get(endpoint(server.url, 'api/me'), {}));
      expect(error.code).toBe('PLATFORM_UNAVAILABLE');
      expect(requests).toBe(2);
    } finally {
      await server.close();
    }
  });
});
