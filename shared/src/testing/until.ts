// Waiting on a condition in tests and benchmarks, where an event to await is not at hand. Not
// Vitest's vi.waitFor: this is the SDK's testing entry, which a tool author's tests may run under
// another runner (node:test), and the benchmarks run outside any; a Vitest test that waits on an
// assertion rather than a condition uses vi.waitFor (mcp-server/test/catalog-limits.test.ts).

/** Waits until `condition` holds, polling every 20 ms; fails naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
