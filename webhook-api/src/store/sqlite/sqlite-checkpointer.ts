// Checkpoints a SQLite database's write-ahead log from a worker thread of its own. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, on the thread that committed: with
// node:sqlite that is the event loop, held for the checkpoint's writes and fsyncs (10 to 25 ms once
// every thousand pages, about two thirds of all commit time under a steady delivery load). A PASSIVE
// checkpoint on another connection never blocks the writer, and the WAL is still kept short.
import { Worker } from 'node:worker_threads';

export interface Checkpointer {
  /** Stops checkpointing and closes the worker's connection. */
  stop(): Promise<void>;
}

/** What the worker runs: CommonJS, so it needs no loader and no file of its own. */
const workerSource = `
const { DatabaseSync } = require('node:sqlite');
const { parentPort, workerData } = require('node:worker_threads');
const db = new DatabaseSync(workerData.path);
const checkpoint = () => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or gone: the next round tries again, and the writer's own threshold is the backstop.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Checkpoints the database at `path` every `everyMs` from a worker thread, which never keeps the process alive. */
export function startCheckpointer(path: string, everyMs: number): Checkpointer {
  const worker = new Worker(workerSource, { eval: true, workerData: { path, everyMs } });
  worker.unref();
  // A worker that failed leaves the writer's threshold to checkpoint: nothing is lost.
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      resolve();
    });
  });
  return {
    async stop() {
      // Held until it has exited: the caller awaits that, and nothing else may keep the process up.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
