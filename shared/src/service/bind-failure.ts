// A gRPC bind failure as one line that names the address and the variable that moves it, as
// listenOn does for HTTP; grpc-js's own message lists every resolved address. The tool services'
// servers and the gateway's registry stop start-up with it.

/** The error to stop start-up with when serving on `address`, set by the variable `variable`, failed. */
export function bindFailure(error: unknown, address: string, variable: string): Error {
  const said = error instanceof Error ? error.message : String(error);
  const why = /EADDRINUSE/.test(said)
    ? 'is already in use'
    : /EACCES/.test(said)
      ? 'may not be used by this user'
      : /EADDRNOTAVAIL|ENOTFOUND|EAI_/.test(said)
        ? 'is not an address of this machine'
        : `cannot be listened on (${said.replace(/\s+/g, ' ').slice(0, 200)})`;
  return new Error(`${address} ${why}; set ${variable} to another host:port`, { cause: error });
}
