// The worker thread of the SQLite delivery queue: a connection of its own to the same file, on which
// the deliverer's claims, settlements and leases run, so the event loop sends
// requests while SQLite writes. The statements and transactions are the in-loop queue's own; SQLite
// serializes this connection's writes with the API's, and the write-ahead log keeps reads apart.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection, walBackstopPages } from '../../store/sqlite/open-sqlite.ts';
import { classifySqliteError, createSqliteDriver } from '../../store/sqlite/sqlite-driver.ts';
import { StoreUnavailableError } from '../../store/store-unavailable.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { OffLoopAnswer, OffLoopCall, OffLoopFailure, OffLoopOperation, OffLoopWorkerData } from './off-loop-protocol.ts';
import { createSqliteDeliveryQueue } from './sqlite-delivery-queue.ts';

const port = parentPort;
if (!port) throw new Error('queue-worker.ts runs as a worker thread');
const { path, busyTimeoutMs, health } = workerData as OffLoopWorkerData;
const db = openSqliteConnection(path, { busyTimeoutMs });
db.exec(`PRAGMA wal_autocheckpoint = ${walBackstopPages}`);
const driver = createSqliteDriver(db);
// No ingest here (the loop's connection takes it), so no batch rules. An endpoint its settlements
// disable is disabled in the database; the loop's deliverer does not hear of it (no log line, no metric).
const queue = createSqliteDeliveryQueue(driver, { ...(health && { health }) });
const operations: { readonly [O in OffLoopOperation]: (...args: Parameters<DeliveryQueue[O]>) => Promise<unknown> } = {
  claim: (request) => queue.claim(request),
  settle: (owner, settlements, now) => queue.settle(owner, settlements, now),
  settleAndClaim: (settlements, request) => queue.settleAndClaim(settlements, request),
  nextDueAt: () => queue.nextDueAt(),
  settleAndRecheck: (settlements, owner, held, now) => queue.settleAndRecheck(settlements, owner, held, now),
  renewLeases: (owner, ids, until) => queue.renewLeases(owner, ids, until),
  release: (owner) => queue.release(owner),
  prune: (before, limit) => queue.prune(before, limit),
  expireWaiting: (now, maxAgeMs, limit) => queue.expireWaiting(now, maxAgeMs, limit),
};

function failureOf(error: unknown): OffLoopFailure {
  const errcode = (error as { errcode?: unknown } | undefined)?.errcode;
  return {
    message: error instanceof Error ? error.message : String(error),
    unavailable: error instanceof StoreUnavailableError || classifySqliteError(error) === 'unavailable',
    errcode: typeof errcode === 'number' ? errcode : undefined,
  };
}

async function answer({ id, operation, args }: OffLoopCall): Promise<OffLoopAnswer> {
  try {
    const run = operations[operation] as (...a: typeof args) => Promise<unknown>;
    return { id, ok: true, value: await run(...args) };
  } catch (error) {
    return { id, ok: false, failure: failureOf(error) };
  }
}

port.on('message', (message: OffLoopCall | 'close') => {
  if (message === 'close') {
    void driver.close().finally(() => {
      port.close();
    });
    return;
  }
  void answer(message).then((reply) => {
    port.postMessage(reply);
  });
});
