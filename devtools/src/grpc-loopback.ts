// A grpc-js server of a test or a benchmark on a free loopback port: grpc-js binds with a callback,
// this answers the address it bound. Structural, so devtools needs no grpc-js of its own.

export interface BindableServer<Credentials> {
  bindAsync(address: string, credentials: Credentials, callback: (error: Error | null, port: number) => void): void;
}

/** Binds `server` to 127.0.0.1 on a port the system picks; the address it listens on (`127.0.0.1:port`). */
export function bindOnLoopback<Credentials>(server: BindableServer<Credentials>, credentials: Credentials): Promise<string> {
  return new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', credentials, (error, port) => {
      if (error) reject(error);
      else resolve(`127.0.0.1:${port}`);
    });
  });
}
