import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fetchBlockedPorts, isFetchBlockedPort } from './fetch-blocked-ports.ts';

describe("fetch's blocked ports", () => {
  it("are undici's own list, number for number", () => {
    // undici has no public export of the list: its module is read where the package keeps it.
    const { badPorts } = createRequire(import.meta.url)('undici/lib/web/fetch/constants.js') as { badPorts: readonly string[] };
    expect(fetchBlockedPorts).toEqual(badPorts.map(Number).sort((a, b) => a - b));
  });

  it("are each refused by Node's fetch before any connection, as a bad port", async () => {
    const causes = await Promise.all(
      fetchBlockedPorts.map((port) =>
        fetch(`http://127.0.0.1:${port}/`).then(
          () => 'answered',
          (error: unknown) => (error as { cause?: Error }).cause?.message ?? 'no cause',
        ),
      ),
    );
    expect(new Set(causes)).toEqual(new Set(['bad port']));
  });

  it('leave the stack’s default ports and their neighbours alone', () => {
    for (const port of [0, 80, 443, 3000, 3001, 4000, 4001, 4100, 4101, 4900, 5433, 5999, 6001, 50051])
      expect(isFetchBlockedPort(port), String(port)).toBe(false);
    for (const port of [6000, 6665, 6669, 10080]) expect(isFetchBlockedPort(port), String(port)).toBe(true);
  });
});
