import { describe, expect, it } from 'vitest';
import type { SqlQueryable } from '../store/sql-driver.ts';
import { waitOutLogReadAhead } from './log-read-ahead.ts';

const readAhead = { rounds: 2, windowMs: 200 };
/** A database whose one statement answers `answer`. */
const answering = (answer: () => Promise<unknown>) => ({ one: answer }) as unknown as SqlQueryable;

async function took(db: SqlQueryable): Promise<number> {
  const started = performance.now();
  await waitOutLogReadAhead(db, readAhead, 'cfg');
  return performance.now() - started;
}

describe('waiting out the read-ahead window after a change', () => {
  it('waits the window while a deliverer holds the endpoint’s cursor, and not when none does', async () => {
    expect(await took(answering(() => Promise.resolve({ held: 1 })))).toBeGreaterThanOrEqual(readAhead.windowMs);
    expect(await took(answering(() => Promise.resolve(undefined)))).toBeLessThan(readAhead.windowMs);
  });

  it('waits the window when the cursor cannot be read, and answers as the change was made', async () => {
    expect(await took(answering(() => Promise.reject(new Error('connection terminated'))))).toBeGreaterThanOrEqual(readAhead.windowMs);
  });
});
