// Reading an endpoint's log ahead of its free slots, where the database is a round trip away
// (PostgreSQL): a read takes up to `rounds` rounds of the endpoint's slots, and what does not fit
// yet is held and sent as the slots free, with no statement in between, for `windowMs` after the
// read that read it (timed from before that read was sent). Held longer, or once an attempt of the
// endpoint failed, a point is rechecked before it is sent (leases.ts, recheckIn), like a claimed
// row held ahead.
//
// What makes the window safe: every change that stops or alters the sending of an endpoint's points
// (the configuration updated or deleted, a device unlinked; a signing secret's rotation needs none,
// the old secret signing on through the overlap) waits out the window after it commits
// and before it answers, when a deliverer holds the endpoint's cursor (waitOutLogReadAhead). A read
// that did not see the change was sent before the change committed, so everything it let go without
// a recheck went before the change answered: after the answer, nothing read before it is sent
// unchecked, which is what a recheck of every held point gives, without its statement.
import type { SqlQueryable } from '../store/sql-driver.ts';

export interface LogReadAhead {
  /** Rounds of an endpoint's slots a read takes at most. */
  readonly rounds: number;
  /** How long after its read a held point goes without a recheck. */
  readonly windowMs: number;
}

export const postgresLogReadAhead: LogReadAhead = { rounds: 2, windowMs: 25 };

/** What a change waits past the window: timers fire late, never early, but the two clocks are two processes'. */
const marginMs = 5;

/**
 * After a change to `configId` has committed: waits out the read-ahead window if a deliverer holds
 * the endpoint's cursor now, or is taking it (its read locks the row: the check waits for it to
 * commit), or if that cannot be read (the change stands, and is answered as made); nothing to wait
 * for otherwise, no point of the endpoint being held.
 */
export async function waitOutLogReadAhead(db: SqlQueryable, readAhead: LogReadAhead, configId: string): Promise<void> {
  const held = await db
    .one(
      {
        name: 'webhook_cursor_held',
        // FOR SHARE: a read taking the cursor as the change committed has it locked; its answer is waited for.
        text: 'SELECT 1 AS held FROM endpoint_cursors WHERE webhook_config_id = $1 AND lease_owner IS NOT NULL AND lease_until >= $2 FOR SHARE',
      },
      [configId, Date.now()],
    )
    .catch(() => ({ held: 1 }));
  if (held) await new Promise((resolve) => setTimeout(resolve, readAhead.windowMs + marginMs));
}
