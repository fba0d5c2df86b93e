import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { closeServer, listenOn } from './lifecycle.ts';
import { listenOnFreePort } from '../testing/index.ts';

describe('listenOn', () => {
  it('resolves to the bound port', async () => {
    const server = createServer();
    const port = await listenOn(server, { host: '127.0.0.1', port: 0, portVariable: 'SOME_PORT' });
    expect(port).toBeGreaterThan(0);
    await closeServer(server);
    expect(server.listening).toBe(false);
  });

  it('names the port and the variable that moves it when the port is taken', async () => {
    const taken = await listenOnFreePort();
    const port = Number(new URL(taken.url).port);
    try {
      await expect(listenOn(createServer(), { host: '127.0.0.1', port, portVariable: 'WEBHOOK_API_PORT' })).rejects.toThrow(
        `port ${port} on 127.0.0.1 is already in use; set WEBHOOK_API_PORT to another port`,
      );
    } finally {
      await taken.close();
    }
  });
});

describe('exitOnStartupFailure', () => {
  it('prints one line naming the service and the reason, no stack trace, and exits 1', () => {
    const script = `
      import { exitOnStartupFailure } from ${JSON.stringify(new URL('./lifecycle.ts', import.meta.url).href)};
      await exitOnStartupFailure('demo-service', async () => { throw new Error('WEBHOOK_ENCRYPTION_KEY must be id:base64key\\nsecond line'); });
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('demo-service cannot start: WEBHOOK_ENCRYPTION_KEY must be id:base64key second line\n');
  });
});

describe('stopOnSignals', () => {
  it('stops in order, exit code 0, when the parent that started it with an IPC channel goes away', async () => {
    const script = `
      import { stopOnSignals } from ${JSON.stringify(new URL('./lifecycle.ts', import.meta.url).href)};
      const logger = { info() {}, warn() {}, error() {} };
      setInterval(() => {}, 1000); // a service's servers hold the process open
      stopOnSignals({ logger, steps: [() => { process.stdout.write('first step\\n'); }, () => { process.stdout.write('second step\\n'); }] });
      process.send('started');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await once(child, 'message');
    child.disconnect();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(printed).toBe('first step\nsecond step\n');
  });
});

describe('a service started with an IPC channel', () => {
  it('ends, with endWithParent, when the channel closes while it is still starting, before stopOnSignals is in place', async () => {
    const script = `
      const { endWithParent } = await import(${JSON.stringify(new URL('./lifecycle.ts', import.meta.url).href)});
      endWithParent();
      setInterval(() => {}, 1000); // a start-up that takes its time
      process.send('loaded');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await once(child, 'message');
    child.disconnect();
    const exited = once(child, 'exit');
    const inTime = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(resolve, 5_000, false))]);
    if (!inTime) child.kill('SIGKILL');
    expect(inTime).toBe(true);
  });
});
