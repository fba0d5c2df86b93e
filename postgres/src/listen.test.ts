// The LISTEN helper on a real PostgreSQL (vitest.config.ts's postgres project provides the
// cluster): notifications delivered with their payloads, a dropped connection made again and the
// caller told, a first failure thrown, and nothing left listening or called once stopped.
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { listen, type ListenOptions, type StopListening } from './listen.ts';

let databaseUrl = '';
let admin: pg.Pool | undefined;
beforeAll(async () => {
  databaseUrl = await freshDatabase(inject('postgresUrl'));
  admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
});
afterAll(async () => {
  await admin?.end();
});

const stops: StopListening[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

const sql = async (text: string, values: readonly string[] = []) => (await (admin as pg.Pool).query<Record<string, unknown>>(text, [...values])).rows;
/** A channel no other test uses. */
const freshChannel = () => `listen_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
const notify = (channel: string, payload: string) => sql('SELECT pg_notify($1, $2)', [channel, payload]);
/** The server's connections listening on `channel` (their last statement was its LISTEN). */
const listeners = async (channel: string) => Number((await sql('SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1', [`LISTEN ${channel}`]))[0]?.n);
/** Ends, from the server's side, every connection listening on `channel`: as a restart or a network loss would. */
const dropListeners = (channel: string) => sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [`LISTEN ${channel}`]);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Heard {
  readonly payloads: (string | undefined)[];
  listening: number;
  readonly lost: (Error | undefined)[];
}

async function listening(channel: string, options: Partial<ListenOptions> = {}): Promise<{ heard: Heard; stop: StopListening }> {
  const heard: Heard = { payloads: [], listening: 0, lost: [] };
  const stop = await listen({
    connectionString: databaseUrl,
    channel,
    connectionTimeoutMs: 5_000,
    reconnectDelayMs: 50,
    onNotification: (payload) => heard.payloads.push(payload),
    onListening: () => (heard.listening += 1),
    onConnectionLost: (error) => heard.lost.push(error),
    ...options,
  });
  stops.push(stop);
  return { heard, stop };
}

describe('listen', () => {
  it('delivers each notification on its channel with its payload, and says when it listens', async () => {
    const channel = freshChannel();
    const { heard } = await listening(channel);
    expect(heard.listening).toBe(1);
    await notify(channel, 'one');
    await notify(freshChannel(), 'elsewhere');
    await notify(channel, 'two');
    await expect.poll(() => heard.payloads).toEqual(['one', 'two']);
    expect(heard.lost).toEqual([]);
  });

  it('connects again after its connection drops, tells the caller, and delivers what is sent after', async () => {
    const channel = freshChannel();
    const { heard } = await listening(channel);
    await dropListeners(channel);
    await expect.poll(() => heard.listening, { timeout: 10_000 }).toBe(2);
    expect(heard.lost).toHaveLength(1);
    expect(await listeners(channel)).toBe(1);
    await notify(channel, 'after the drop');
    await expect.poll(() => heard.payloads).toEqual(['after the drop']);

    // And again: every loss is retried, not only the first.
    await dropListeners(channel);
    await expect.poll(() => heard.listening, { timeout: 10_000 }).toBe(3);
    await notify(channel, 'after the second drop');
    await expect.poll(() => heard.payloads).toEqual(['after the drop', 'after the second drop']);
  });

  it('keeps trying while the database refuses it, telling the caller of each failed attempt', async () => {
    const channel = freshChannel();
    const role = `listen_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await sql(`CREATE ROLE ${role} LOGIN PASSWORD 'listen-test-password'`);
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = 'listen-test-password';
    const { heard, stop } = await listening(channel, { connectionString: url.href });
    // The role may not log in for a while: a few attempts fail, then one listens again.
    await sql(`ALTER ROLE ${role} NOLOGIN`);
    await dropListeners(channel);
    await expect.poll(() => heard.lost.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(heard.listening).toBe(1);
    expect(heard.lost.slice(1).every((error) => error instanceof Error)).toBe(true);
    await sql(`ALTER ROLE ${role} LOGIN`);
    await expect.poll(() => heard.listening, { timeout: 10_000 }).toBe(2);
    await notify(channel, 'back');
    await expect.poll(() => heard.payloads).toEqual(['back']);
    await stop();
    await sql(`DROP ROLE ${role}`);
  });

  it('stops cleanly: its connection closed, nothing called after, even while it was connecting again', async () => {
    const channel = freshChannel();
    const { heard, stop } = await listening(channel);
    expect(await listeners(channel)).toBe(1);
    await stop();
    await expect.poll(() => listeners(channel)).toBe(0);
    await notify(channel, 'too late');

    // Stopped between a drop and the reconnection it had planned.
    const other = freshChannel();
    const second = await listening(other, { reconnectDelayMs: 200 });
    await dropListeners(other);
    await expect.poll(() => second.heard.lost.length).toBe(1);
    await second.stop();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(second.heard.listening).toBe(1);
    expect(await listeners(other)).toBe(0);
    expect(heard.payloads).toEqual([]);
  });

  it('rejects when the first connection fails, and tries no more', async () => {
    const lost: unknown[] = [];
    const url = new URL(databaseUrl);
    url.port = String(await closedPort());
    await expect(
      listen({
        connectionString: url.href,
        channel: freshChannel(),
        connectionTimeoutMs: 5_000,
        onNotification: () => undefined,
        onConnectionLost: (error) => lost.push(error),
      }),
    ).rejects.toThrow();
    expect(lost).toEqual([]);
  });

  it('refuses a channel name LISTEN would not take as it is', async () => {
    await expect(
      listen({ connectionString: databaseUrl, channel: 'Changes; DROP TABLE x', connectionTimeoutMs: 1_000, onNotification: () => undefined }),
    ).rejects.toThrow(TypeError);
  });
});
