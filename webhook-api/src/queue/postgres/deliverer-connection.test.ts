import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { openPostgresDriver } from '../../store/postgres/open-postgres.ts';
import { delivererConnectionString } from './deliverer-connection.ts';

describe('the deliverer’s connections to PostgreSQL', () => {
  it('add the planner options to the URL, beside any it has; a string that is not a URL gets none', () => {
    expect(new URL(delivererConnectionString('postgres://u@db:5432/webhooks') ?? '').searchParams.get('options')).toBe(
      '-c enable_seqscan=off -c enable_bitmapscan=off -c jit=off',
    );
    const withOptions = delivererConnectionString('postgres://u@db/webhooks?options=-c%20statement_timeout%3D5s&sslmode=require') ?? '';
    expect(new URL(withOptions).searchParams.get('options')).toBe('-c statement_timeout=5s -c enable_seqscan=off -c enable_bitmapscan=off -c jit=off');
    expect(new URL(withOptions).searchParams.get('sslmode')).toBe('require');
    expect(delivererConnectionString('host=db dbname=webhooks')).toBeUndefined();
  });

  it('plan with index scans only, in every session of their pool', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const driver = await openPostgresDriver(delivererConnectionString(url) ?? '', { maxConnections: 2 });
    try {
      const settings = await Promise.all(
        Array.from({ length: 3 }, () => driver.one(`SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_bitmapscan') AS bitmap`)),
      );
      expect(settings).toEqual(Array.from({ length: 3 }, () => ({ seq: 'off', bitmap: 'off' })));
    } finally {
      await driver.close();
    }
  });
});
