// LISTEN on a PostgreSQL channel, on a connection of its own (a pooled one would be handed to
// others), connecting again a moment after any loss. Notifications sent while no connection
// listened are lost, so the caller is told each time it listens again (and the first time) and
// reads what it may have missed; a failure of the first connection is the caller's to see.
import pg from 'pg';

/** How long a lost connection waits before it connects again, unless told otherwise. */
const defaultReconnectDelayMs = 1_000;

export interface ListenOptions {
  readonly connectionString: string;
  /** A plain channel name (a-z, 0-9, _), as LISTEN takes it unquoted and pg_notify() names it. */
  readonly channel: string;
  readonly connectionTimeoutMs: number;
  /** How long a lost connection waits before it connects again; 1 s. */
  readonly reconnectDelayMs?: number;
  /** Each notification on the channel, with its payload. */
  readonly onNotification: (payload: string | undefined) => void;
  /** Each time it listens: once connected at first, and after each reconnection (notifications may have been missed meanwhile). */
  readonly onListening?: () => void;
  /** Each connection lost once listening, and each failed attempt to connect again; never given the connection string. */
  readonly onConnectionLost?: (error: Error | undefined) => void;
}

/** Stops listening: no more calls once it resolves, and no connection left open. */
export type StopListening = () => Promise<void>;

/** Listens until the returned function is called; rejects, with nothing left open, when the first connection fails. */
export async function listen(options: ListenOptions): Promise<StopListening> {
  const { connectionString, channel, connectionTimeoutMs, reconnectDelayMs = defaultReconnectDelayMs } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new TypeError(`listen: ${channel} is not a plain channel name`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  /** The attempt to connect under way, if any, which stop waits for. */
  let connecting: Promise<void> | undefined;
  /** Connections being closed, which stop waits for. */
  const closing = new Set<Promise<void>>();

  const connect = async (first: boolean): Promise<void> => {
    const next = new pg.Client({ connectionString, connectionTimeoutMillis: connectionTimeoutMs, keepAlive: true });
    let lostAlready = false;
    const lost = (error?: Error) => {
      if (lostAlready) return;
      lostAlready = true;
      next.removeAllListeners();
      next.on('error', () => undefined);
      const ended = next.end().catch(() => undefined);
      closing.add(ended);
      void ended.then(() => closing.delete(ended));
      if (client === next) client = undefined;
      // The first connection's failure is thrown to the caller, not retried.
      if (stopped || first) return;
      options.onConnectionLost?.(error);
      retry = setTimeout(() => {
        connecting = connect(false).catch(() => undefined);
      }, reconnectDelayMs);
    };
    next.on('notification', (message) => {
      options.onNotification(message.payload);
    });
    next.on('error', lost);
    next.on('end', () => {
      lost();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
    first = false; // from now on, a loss is retried
    if (stopped) {
      lost();
      return;
    }
    client = next;
    options.onListening?.();
  };

  connecting = connect(true);
  await connecting;
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await connecting;
    const current = client;
    client = undefined;
    current?.removeAllListeners();
    current?.on('error', () => undefined);
    await current?.end().catch(() => undefined);
    await Promise.all(closing);
  };
}
