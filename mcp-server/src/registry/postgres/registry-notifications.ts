// How a replica hears that another changed the registrations: NOTIFY on the schema's channel, sent
// as the writing transaction commits, and LISTEN on a connection of its own (@platform/postgres's
// listen). A lost connection is made again, and then the listener is called, since notifications
// may have been missed meanwhile; it is also called every `reconcileMs`, a safety net for anything
// missed without a lost connection.
import { listen } from '@platform/postgres/listen';

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
  const stop = await listen({
    connectionString,
    channel,
    connectionTimeoutMs,
    onNotification: (payload) => {
      listener(payload);
    },
    onListening: () => {
      listener();
    },
    onConnectionLost: options.onConnectionLost,
  });
  const reconcile = setInterval(() => {
    listener();
  }, options.reconcileMs);
  reconcile.unref();
  return async () => {
    clearInterval(reconcile);
    await stop();
  };
}
