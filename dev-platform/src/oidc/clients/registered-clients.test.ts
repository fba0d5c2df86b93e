import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manualClock } from '@platform/tool-sdk/testing';
import { ClientsFileError, ClientStoreFullError, createRegisteredClients, type RegisteredClientsOptions } from './registered-clients.ts';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'registered-clients-')), 'clients.json');
const client = (id: string) => ({ client_id: id, redirect_uris: ['http://127.0.0.1:1/cb'] });
const hour = 3_600_000;

function store(options: Partial<RegisteredClientsOptions> = {}) {
  return createRegisteredClients({ maxClients: 1000, inUseForMs: hour, clock: manualClock(), ...options });
}

describe('registered clients', () => {
  it('are kept in the file and found by the next store that reads it', async () => {
    const file = freshFile();
    await store({ file }).adapter().upsert('c1', client('c1'));
    expect(await store({ file }).adapter().find('c1')).toEqual(client('c1'));
  });

  it('leave the file when destroyed', async () => {
    const file = freshFile();
    const clients = store({ file }).adapter();
    await clients.upsert('c1', client('c1'));
    await clients.upsert('c2', client('c2'));
    await clients.destroy('c1');
    const next = store({ file }).adapter();
    expect(await next.find('c1')).toBeUndefined();
    expect(await next.find('c2')).toEqual(client('c2'));
  });

  it('stay in memory when no file is named', async () => {
    await store().adapter().upsert('c1', client('c1'));
    expect(await store().adapter().find('c1')).toBeUndefined();
  });

  it('start empty when the file does not exist yet, and write nothing until a client registers', () => {
    const file = freshFile();
    store({ file });
    expect(existsSync(file)).toBe(false);
  });

  it('answer an id no registration holds from the resolver they are given', async () => {
    const clients = store().adapter((id) => Promise.resolve(id === 'https://app.example/c.json' ? { client_id: id } : undefined));
    expect(await clients.find('https://app.example/c.json')).toEqual({ client_id: 'https://app.example/c.json' });
    expect(await clients.find('nobody')).toBeUndefined();
  });
});

describe('a full store', () => {
  it('makes room by dropping the client unused for longest: a registration or a look-up is no use, a sign-in is', async () => {
    const clock = manualClock();
    const clients = store({ maxClients: 3, clock });
    const adapter = clients.adapter();
    for (const id of ['signed-in', 'old', 'newer']) {
      await adapter.upsert(id, client(id));
      clock.advance(1_000);
    }
    clients.markUsed('signed-in', clock());
    clock.advance(2 * hour); // past inUseForMs: signed-in is no longer in use, but used last
    await adapter.find('old'); // a look-up (GET /auth) is no use

    expect(clients.roomForClient()).toBe(true);
    await adapter.upsert('n1', client('n1'));
    expect(await adapter.find('old')).toBeUndefined();
    await adapter.upsert('n2', client('n2'));
    expect(await adapter.find('newer')).toBeUndefined();
    expect(await adapter.find('signed-in')).toEqual(client('signed-in'));
  });

  it('never drops a client in use: signed in within inUseForMs, or holding a grant or token longer', async () => {
    const clock = manualClock();
    const clients = store({ maxClients: 2, clock });
    const adapter = clients.adapter();
    await adapter.upsert('recent', client('recent'));
    await adapter.upsert('holder', client('holder'));
    clients.markUsed('recent', clock());
    clients.markUsed('holder', clock() + 8 * hour); // its grant lives 8 h

    expect(clients.roomForClient()).toBe(false);
    await expect(adapter.upsert('flood', client('flood'))).rejects.toBeInstanceOf(ClientStoreFullError);
    clock.advance(hour);
    await adapter.upsert('next', client('next'));
    expect(await adapter.find('recent')).toBeUndefined();
    expect(await adapter.find('holder')).toEqual(client('holder'));
  });

  it('is judged after a restart as before it: when each client registered and was used is kept in the file', async () => {
    const file = freshFile();
    const clock = manualClock();
    const before = store({ file, maxClients: 2, clock });
    await before.adapter().upsert('signed-in', client('signed-in'));
    before.markUsed('signed-in', clock());
    clock.advance(1_000);
    await before.adapter().upsert('flood', client('flood'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      clients: [client('signed-in'), client('flood')],
      usage: {
        'signed-in': { registeredAt: clock() - 1_000, usedAt: clock() - 1_000, inUseUntil: clock() - 1_000 + hour },
        flood: { registeredAt: clock() },
      },
    });

    const after = store({ file, maxClients: 2, clock });
    await after.adapter().upsert('newcomer', client('newcomer'));
    expect(await after.adapter().find('flood')).toBeUndefined();
    expect(await after.adapter().find('signed-in')).toEqual(client('signed-in'));
  });

  it('takes a file from before usage was kept: its clients count as never used', async () => {
    const file = freshFile();
    writeFileSync(file, JSON.stringify({ version: 1, clients: [client('c1'), client('c2')] }));
    const clients = store({ file, maxClients: 2 });
    await clients.adapter().upsert('c3', client('c3'));
    expect(await clients.adapter().find('c1')).toBeUndefined();
    expect(await clients.adapter().find('c3')).toEqual(client('c3'));
  });
});

describe('a clients file the platform did not write', () => {
  it.each([
    ['not JSON', '{', 'not JSON'],
    ['another version', '{"version":2,"clients":[]}', 'version 2, expected 1'],
    ['a client without an id', '{"version":1,"clients":[{"redirect_uris":[]}]}', 'a client without a client_id'],
    ['usage that is no object', '{"version":1,"clients":[],"usage":[]}', 'usage is not an object'],
    [
      'a usage without a registration time',
      '{"version":1,"clients":[{"client_id":"c1"}],"usage":{"c1":{"usedAt":1}}}',
      'the usage of c1 is not as this platform writes it',
    ],
  ])('is refused with %s, naming it', (_what, text, why) => {
    const file = freshFile();
    writeFileSync(file, text);
    expect(() => store({ file })).toThrow(ClientsFileError);
    expect(() => store({ file })).toThrow(`${file} is not a clients file written by this platform (${why})`);
  });
});
