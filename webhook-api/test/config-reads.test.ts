// A configuration is answered from memory on SQLite while nothing changed it, and the database is
// asked whether another connection committed once per turn of the event loop rather than once per
// request. Neither may cost freshness: a request sent after another connection's commit is answered
// with what it committed, however many requests are under way around it.
import { DatabaseSync } from 'node:sqlite';
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { newStoreLocation, startWebhookApi } from './harness.ts';

const platform = startedForTests(() => startPlatform());

describe('GET /v2/webhooks/{id} on SQLite while another connection changes the configuration', () => {
  it('answers every request sent after the commit with what was committed, under 16 connections of GETs', { timeout: 30_000 }, async () => {
    const location = await newStoreLocation('SQLite', '');
    const api = await startWebhookApi({ location, platformUrl: platform().issuer, logLevel: 'warn' });
    const other = new DatabaseSync(location.sqlitePath ?? '');
    try {
      const oscar = await api.clientAs('oscar');
      const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'v0', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' });
      const { id } = created.body as { id: string };
      other.exec('PRAGMA busy_timeout = 5000');
      const rename = other.prepare('UPDATE webhook_configs SET name = ? WHERE id = ?');
      /** The last name the other connection committed (v1, v2, …): what a request sent from now on must see at least. */
      let committed = 0;
      let done = false;
      const stale: string[] = [];
      let answered = 0;
      const getting = async () => {
        while (!done) {
          const atLeast = committed;
          const { status, body } = await oscar('GET', `/v2/webhooks/${id}`);
          expect(status).toBe(200);
          const seen = Number((body as { name: string }).name.slice(1));
          if (seen < atLeast) stale.push(`v${seen} answered to a request sent after v${atLeast} was committed`);
          answered += 1;
        }
      };
      const loops = Array.from({ length: 16 }, getting);
      for (let version = 1; version <= 40; version++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        rename.run(`v${version}`, id);
        committed = version;
      }
      done = true;
      await Promise.all(loops);
      expect(stale).toEqual([]);
      // The requests did overlap the commits: most were answered from memory between them.
      expect(answered).toBeGreaterThan(100);
    } finally {
      other.close();
      await api.close();
    }
  });
});
