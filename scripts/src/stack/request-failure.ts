// Why a request of the stack's scripts failed, in words a person can act on: undici's fetch says
// only "fetch failed" and keeps the reason in `error.cause` (ECONNREFUSED, a bad port, a reset), so
// the chain of causes is read down to it.

/** How deep a chain of causes is followed: the MCP SDK wraps fetch's error, which wraps the socket's. */
const maxDepth = 5;

/** One error of the chain as text; undefined when it adds nothing (fetch's own "fetch failed"). */
function ownWords(error: unknown): string | undefined {
  if (!(error instanceof Error)) return typeof error === 'string' && error !== '' ? error : undefined;
  if (error.name === 'TimeoutError') return 'no answer in time';
  if (error.message === 'fetch failed' && error.cause !== undefined) return undefined;
  if (error.message === 'bad port') return 'bad port: fetch refuses to connect to this port';
  const code = (error as NodeJS.ErrnoException).code;
  const message = error.message.trim();
  if (typeof code === 'string' && !message.includes(code)) return message ? `${code}: ${message}` : code;
  return message || error.name;
}

/** `error` and its causes as one line: `connect ECONNREFUSED 127.0.0.1:4000`, `bad port: ...`. */
export function requestFailure(error: unknown): string {
  const said: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < maxDepth && current !== undefined && current !== null; depth++) {
    const words = ownWords(current);
    // A wrapper that repeats its cause's words (the MCP SDK's "...: fetch failed") adds only noise.
    if (words !== undefined && !said.some((earlier) => earlier.includes(words))) said.push(words);
    current = current instanceof Error ? current.cause : undefined;
  }
  return said.join(': ').replace(/\s+/g, ' ') || 'failed without a reason';
}
