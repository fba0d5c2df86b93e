// How a replica hears that another changed the registrations: NOTIFY on the schema's channel, sent
// as the writing transaction commits, and LISTEN on a connection of its own. A lost connection is
// made again, and then the listener is called, since notifications may have been missed meanwhile;
// it is also called every `reconcileMs`, a safety net for anything missed without a lost connection.
import pg from 'pg';

/** How long a lost LISTEN connection waits before it connects again. */
const relistenDelayMs = 1_000;

export const changesChannel = (schema: string) => `${schema}_changes`;

export interface RegistryNotificationsOptions {
  readonly connectionString: string;
  readonly channel: string;
  readonly connectionTimeoutMs: number;
  readonly reconcileMs: number;
  /** Told of each lost connection (never with the connection string). */
  readonly onConnectionLost: (error: Error | undefined) => void;
}

/**
 * Listens until the returned function is called; rejects when the first connection fails. The
 * listener gets a notification's payload; it is called without one after a lost connection and at
 * each reconciliation.
 */
export async function listenForChanges(options: RegistryNotificationsOptions, listener: (payload?: string) => void): Promise<() => Promise<void>> {
  const { connectionString, channel, connectionTimeoutMs } = options;
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (first: boolean): Promise<void> => {
    const next = new pg.Client({ connectionString, connectionTimeoutMillis: connectionTimeoutMs, keepAlive: true });
    let lostAlready = false;
    const lost = (error?: Error) => {
      if (lostAlready) return;
      lostAlready = true;
      next.removeAllListeners();
      next.on('error', () => undefined);
      next.end().catch(() => undefined);
      if (client === next) client = undefined;
      if (stopped || first) return;
      options.onConnectionLost(error);
      retry = setTimeout(() => {
        connect(false).catch(() => undefined);
      }, relistenDelayMs);
    };
    next.on('notification', (message) => {
      listener(message.payload);
    });
    next.on('error', lost);
    next.on('end', () => {
      lost();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      // A later connection is tried again by lost(); the first one's failure is the caller's to report.
      lost(error as Error);
      throw error;
    }
    first = false; // from now on, a loss is retried
    if (stopped) {
      lost();
      return;
    }
    client = next;
    listener();
  };

  await connect(true);
  const reconcile = setInterval(() => {
    listener();
  }, options.reconcileMs);
  reconcile.unref();
  return async () => {
    stopped = true;
    clearInterval(reconcile);
    clearTimeout(retry);
    const current = client;
    client = undefined;
    current?.removeAllListeners();
    current?.on('error', () => undefined);
    await current?.end().catch(() => undefined);
  };
}
