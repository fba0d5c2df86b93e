import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../service/logger.ts';
import { createRequestLogging } from './request-logging.ts';
import { captureLogs, listen } from '../testing/index.ts';

async function serve(level: 'debug' | 'warn') {
  const logs = captureLogs();
  const logging = createRequestLogging(createLogger({ name: 'test', level, destination: logs.destination }));
  const server = await listen((req, res) => {
    logging(req, res, () => {
      req.log.warn('handler line');
      res.statusCode = req.url === '/fail' ? 500 : 200;
      res.end('ok');
    });
  });
  return {
    lines: logs.lines,
    url: server.url,
    close: () => {
      void server.close();
    },
  };
}

describe('createRequestLogging', () => {
  it('gives every line of a request its id, echoes it, and never writes the Authorization header', async () => {
    const { lines, url, close } = await serve('debug');
    const response = await fetch(`${url}/x`, { headers: { authorization: 'Bearer very-secret-token', 'x-request-id': 'req-42' } });
    close();
    expect(response.headers.get('x-request-id')).toBe('req-42');
    const parsed = lines.map((l) => JSON.parse(l) as { reqId: string; msg: string });
    expect(parsed.map((l) => l.msg)).toEqual(['handler line', 'request completed']);
    expect(parsed.every((l) => l.reqId === 'req-42')).toBe(true);
    expect(lines.join('')).not.toContain('very-secret-token');
  });

  it('logs an allow-list of headers and the path without its query string, so a token in either never reaches a log', async () => {
    const { lines, url, close } = await serve('debug');
    await fetch(`${url}/v2/webhooks?companyId=1&access_token=query-secret-token`, {
      headers: { 'x-api-key': 'header-secret-key', cookie: 'session=cookie-secret', 'x-custom-auth': 'custom-secret', 'user-agent': 'test-agent/1' },
    });
    close();
    const completion = lines
      .map((l) => JSON.parse(l) as { msg: string; req?: { path: string; headers: Record<string, string> } })
      .find((l) => l.msg === 'request completed');
    expect(completion?.req?.path).toBe('/v2/webhooks');
    expect(Object.keys(completion?.req?.headers ?? {}).sort()).toEqual(['user-agent']);
    for (const secret of ['query-secret-token', 'header-secret-key', 'cookie-secret', 'custom-secret']) expect(lines.join('')).not.toContain(secret);
  });

  it('logs only the path of a request line in absolute form, never its user information', async () => {
    const { lines, url, close } = await serve('debug');
    const { port } = new URL(url);
    await new Promise<void>((resolvePromise, reject) => {
      request({ host: '127.0.0.1', port, path: `http://user:password-in-url@127.0.0.1:${port}/v2/webhooks?token=query-secret`, method: 'GET' }, (res) => {
        res.resume();
        res.on('end', resolvePromise);
      })
        .on('error', reject)
        .end();
    });
    close();
    const completion = lines.map((l) => JSON.parse(l) as { msg: string; req?: { path: string } }).find((l) => l.msg === 'request completed');
    expect(completion?.req?.path).toBe('/v2/webhooks');
    expect(lines.join('')).not.toContain('password-in-url');
    expect(lines.join('')).not.toContain('query-secret');
  });

  it('logs the path as requested, even after a router mounted on a prefix rewrote it', async () => {
    const logs = captureLogs();
    const logging = createRequestLogging(createLogger({ name: 'test', level: 'debug', destination: logs.destination }));
    const server = await listen((req, res) => {
      logging(req, res, () => {
        req.url = '/roles/x'; // what app.use('/api', router) leaves in req.url while routing
        res.end('ok');
      });
    });
    await fetch(`${server.url}/api/roles/x`);
    await server.close();
    const completion = logs.lines.map((l) => JSON.parse(l) as { msg: string; req?: { path: string } }).find((l) => l.msg === 'request completed');
    expect(completion?.req?.path).toBe('/api/roles/x');
  });

  it('replaces a malformed request id and writes a completion line only at an enabled level', async () => {
    const { lines, url, close } = await serve('warn');
    const ok = await fetch(`${url}/ok`, { headers: { 'x-request-id': 'bad id with spaces' } });
    await fetch(`${url}/fail`);
    close();
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const messages = lines.map((l) => JSON.parse(l) as { msg: string; res?: { statusCode: number } });
    expect(messages.filter((m) => m.msg === 'request completed').map((m) => m.res?.statusCode)).toEqual([500]);
  });

  it('sets req.id and req.log as plain properties, so every request keeps the same shape (a getter per request gave each its own hidden class)', async () => {
    const logging = createRequestLogging(createLogger({ name: 'test', level: 'warn' }));
    const descriptors: (PropertyDescriptor | undefined)[] = [];
    const server = await listen((req, res) => {
      logging(req, res, () => {
        descriptors.push(Object.getOwnPropertyDescriptor(req, 'log'), Object.getOwnPropertyDescriptor(req, 'id'));
        res.end('ok');
      });
    });
    await fetch(`${server.url}/x`);
    await server.close();
    for (const descriptor of descriptors) expect(descriptor).toMatchObject({ writable: true, enumerable: true, configurable: true });
    expect(typeof (descriptors[0]?.value as { info?: unknown } | undefined)?.info).toBe('function');
  });
});
