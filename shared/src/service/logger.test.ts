import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../errors/platform-error.ts';
import { createLogger, redactSecrets } from './logger.ts';
import { loadPlatformAppSettings } from '../settings/platform-settings.ts';
import { captureLogs } from '../testing/index.ts';

function capture() {
  const { lines, destination } = captureLogs();
  return { lines, logger: createLogger({ name: 'test', level: 'debug', destination }) };
}

const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl';
const secret = 'client-secret-9f8e7d';

describe('createLogger', () => {
  it('never writes a token, a client secret or a webhook credential', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: { method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}`, 'x-api-key': secret, cookie: `s=${token}` } },
        token,
        client_secret: secret,
        body: { subject_token: token, actor_token: token, password: secret },
        webhook: { authPayload: JSON.stringify({ token: secret }), settings: { apiKeyValue: secret } },
      },
      'request',
    );
    logger.child({ requestId: 'r-1' }).debug({ call: { ctx: { authToken: token } } }, 'tool call');
    const output = lines.join('');
    expect(output).toContain('"request"');
    expect(output).toContain('"tool call"');
    expect(output).toContain('[redacted]');
    expect(output).not.toContain(token);
    expect(output).not.toContain(secret);
  });

  it('does not leak the client secret when settings are logged', () => {
    const { lines, logger } = capture();
    const settings = loadPlatformAppSettings({ APP_CLIENT_ID: 'tools', APP_CLIENT_SECRET: secret });
    logger.info({ settings }, 'started');
    expect(lines.join('')).toContain('"appClientId":"tools"');
    expect(lines.join('')).not.toContain(secret);
  });

  it('writes errors with their code and cause', () => {
    const { lines, logger } = capture();
    logger.error({ err: new PlatformError('PLATFORM_UNAVAILABLE', undefined, { cause: new Error('ECONNREFUSED') }) }, 'me check failed');
    const line = JSON.parse(lines[0] ?? '{}') as { err: { code: string; message: string } };
    expect(line.err.code).toBe('PLATFORM_UNAVAILABLE');
    expect(lines[0]).toContain('ECONNREFUSED');
  });

  it("censors keys in any letter case, in arrays, and in a child logger's bindings", () => {
    const { lines, logger } = capture();
    logger
      .child({ authToken: token, ctx: { Authorization: `Bearer ${token}` } })
      .info({ headers: [{ 'X-Api-Key': secret }], nested: { a: { b: { Token: token } } } }, 'cased');
    const output = lines.join('');
    expect(output).toContain('"cased"');
    expect(output).not.toContain(token);
    expect(output).not.toContain(secret);
  });

  it('leaves what it logs untouched and copies nothing when there is nothing to censor', () => {
    const plain = { a: { b: [1, { c: 'x' }] } };
    const withSecret = { user: 'u', auth: { password: secret } };
    const { logger } = capture();
    logger.info(withSecret, 'logged');
    expect(withSecret.auth.password).toBe(secret);
    expect(redactSecrets(plain)).toBe(plain);
    expect(redactSecrets(withSecret)).toEqual({ user: 'u', auth: { password: '[redacted]' } });
  });

  it('reaches four levels deep, as documented', () => {
    const { lines, logger } = capture();
    logger.info({ one: { two: { three: { token } } } }, 'deep');
    expect(lines.join('')).not.toContain(token);
  });

  it('censors what errors carry: their own properties, in any position, and bindings set later', () => {
    const { lines, logger } = capture();
    const carrying = () => Object.assign(new Error('upstream failed'), { token, request: { headers: { Authorization: `Bearer ${token}` } } });
    logger.error({ err: carrying() }, 'one');
    logger.error(carrying());
    logger.warn({ failure: carrying(), errors: [Object.assign(new Error('second'), { token })] }, 'three');
    logger.child({ e: carrying() }).info('four');
    const later = logger.child({});
    later.setBindings({ token });
    later.info('five');
    const output = lines.join('');
    expect(lines).toHaveLength(5);
    expect(output).toContain('upstream failed');
    expect(output).not.toContain(token);
  });
});

describe('createLogger on standard output', () => {
  it('lets a process exit when whoever read its output has gone (a broken pipe), rather than retrying the write forever', async () => {
    const script = `
      import { createLogger } from ${JSON.stringify(new URL('./logger.ts', import.meta.url).href)};
      const logger = createLogger({ name: 'orphan' });
      logger.info('before');
      process.stdin.once('data', () => {
        for (let i = 0; i < 2000; i++) logger.info({ i }, 'a line nobody reads');
        process.exit(0);
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    await once(child.stdout, 'data'); // it runs and logs
    child.stdout.destroy(); // the reader goes away
    child.stdin.write('go\n');
    const exited = once(child, 'exit');
    const inTime = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(resolve, 10_000, false))]);
    if (!inTime) child.kill('SIGKILL');
    expect(inTime).toBe(true);
  }, 15_000);
});
