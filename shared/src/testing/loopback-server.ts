// Real servers on loopback ports the OS chooses, and a port on which nothing listens.
import { once } from 'node:events';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer } from 'node:net';

/** An HTTP server listening on loopback: its base address, and how to close it. */
export interface Listening {
  /** The listening server. */
  readonly server: Server;
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** Drops open connections and closes the server. */
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port, with no handler yet (attach one to `server`). */
export async function listenOnFreePort(): Promise<Listening> {
  const server = createHttpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return {
    server,
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      server.closeAllConnections();
      if (!server.listening) return;
      server.close();
      await once(server, 'close');
    },
  };
}

/** An HTTP server on a free loopback port answering with `handler` (stalls and garbage nock cannot stage). */
export async function listen(handler: RequestListener): Promise<Listening> {
  const listening = await listenOnFreePort();
  listening.server.on('request', handler);
  return listening;
}

/** A loopback port that was just free and is closed again: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return address.port;
}
