// The gateway's long-lived streams are bounded per person, and none outlives its token: one person
// opening 1,100 subscriptions/listen streams holds at most MCP_MAX_STREAMS_PER_CALLER of them and
// leaves room for everyone else; a 2026-07-28 listen stream, a 2025-11-25 GET stream and its
// session end when the token that opened them expires, and hear no list_changed after.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tokenExpiry } from '@platform/tool-sdk/internal';
import { manualClock } from '@platform/tool-sdk/testing';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { stackForTests, startProbeService, until, type ProbeService } from './harness.ts';

describe('one person opening 1,100 subscriptions/listen streams', () => {
  const stack = stackForTests({ toolService: false });
  const agent = new Agent({ connections: 2_000, pipelining: 0 });
  afterAll(() => agent.destroy());

  /** The HTTP request a v2 client makes for subscriptions/listen, as it makes it. */
  async function listenRequest(token: string): Promise<{ headers: Record<string, string>; body: Record<string, unknown> }> {
    let captured: { headers: Record<string, string>; body: Record<string, unknown> } | undefined;
    const capture: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
      if (body?.method === 'subscriptions/listen') captured = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body };
      return fetch(input, init);
    };
    const client = new Client({ name: 'capture', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(stack().mcpUrl), { authProvider: { token: () => Promise.resolve(token) }, fetch: capture }));
    const subscription = await client.listen({ toolsListChanged: true });
    await subscription.close();
    await client.close();
    if (!captured) throw new Error('the client sent no subscriptions/listen');
    return captured;
  }

  it('leaves that person at most their share of streams, and everyone else room for theirs', async () => {
    const token = await stack().tokenFor('oscar');
    const { headers, body } = await listenRequest(token);
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 1_100; batch += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async (_unused, index) => {
          const answer = await request(stack().mcpUrl, {
            dispatcher: agent,
            method: 'POST',
            headers,
            body: JSON.stringify({ ...body, id: `listen-${batch + index}` }),
          });
          statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
          answer.body.on('error', () => undefined).resume();
        }),
      );
    }

    expect([...statuses]).toEqual([[200, 1_100]]);
    expect(stack().gateway.sessions().listens).toBeLessThanOrEqual(10);

    const vera = await stack().connect('vera', 'modern');
    let heard = 0;
    vera.setNotificationHandler('notifications/tools/list_changed', () => {
      heard += 1;
    });
    await vera.listen({ toolsListChanged: true });
    const probe = await startProbeService(stack(), { serviceName: 'after-flood', tools: ['after_flood'] });
    await until(() => heard > 0, 'vera heard list_changed');
    await probe.close();
  });
});

describe('a stream whose token expires', () => {
  const clock = manualClock(Date.now());
  // Re-checks far apart: the expiry alone ends the streams, on the clock the test moves.
  const stack = stackForTests({ toolService: false, clock, gatewayEnv: { MCP_STREAM_RECHECK_SECONDS: '3600' } });
  let probe: ProbeService | undefined;
  afterAll(async () => {
    await probe?.close();
  });

  it('ends at the expiry, with its session, and hears no list_changed after it', async () => {
    const shortToken = await stack().tokenFor('oscar', { expiresIn: 60 });
    const modern = await stack().connect('oscar', 'modern', { token: shortToken });
    const legacy = await stack().connect('oscar', 'legacy', { token: shortToken });
    let heardAfterExpiry = 0;
    for (const client of [modern, legacy]) {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        heardAfterExpiry += 1;
      });
    }
    await modern.listen({ toolsListChanged: true });
    await until(() => stack().gateway.sessions().streams > 0 && stack().gateway.sessions().listens > 0, 'both streams are open');

    clock.advance((tokenExpiry(shortToken) ?? 0) - clock() + 1);

    expect(stack().gateway.sessions()).toEqual({ open: 0, streams: 0, listens: 0 });
    // A person with a fresh token hears the next change; the expired streams do not.
    const fresh = await stack().connect('vera', 'modern');
    let freshHeard = 0;
    fresh.setNotificationHandler('notifications/tools/list_changed', () => {
      freshHeard += 1;
    });
    await fresh.listen({ toolsListChanged: true });
    probe = await startProbeService(stack(), { serviceName: 'after-expiry', tools: ['after_expiry'], timers: clock });
    await until(() => freshHeard > 0, 'the fresh listener heard list_changed');
    expect(heardAfterExpiry).toBe(0);
  });
});
