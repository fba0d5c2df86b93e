// The platform's front channel and back channel with the real dev platform: its identity (issuer and
// API base) is an address nothing listens on, as http://127.0.0.1:4000 is inside a container, and it
// is reached only through its TLS listener, with certificates of a test CA. The app's token
// (ApiTokenProvider, openid-client discovery and client_credentials) and the gateway's token
// exchange work through it, the tokens name the identity, and the issuer is still checked.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createTestPki, type TestPki } from '@platform/devtools/test-certificates';
import { devSecrets, personToken, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { ApiTokenProvider, backChannelFetch, closeServer, createHttpsServer, listenOn } from '@platform/tool-sdk/internal';
import { closedPort } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDelegatedTokens } from '../src/delegation/index.ts';

let pki: TestPki;
let platform: RunningPlatform;
let tlsServer: ReturnType<typeof createHttpsServer>;
let identity: string;
let backChannel: string;
let agent: Agent;

/** fetch that trusts the test CA, as NODE_EXTRA_CA_CERTS makes the global one trust the development CA. */
const trustingFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
  undiciFetch(input as never, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;

beforeAll(async () => {
  pki = await createTestPki();
  agent = new Agent({ connect: { ca: readFileSync(pki.caFile) } });
  // The identity names a port nothing listens on: every request that arrives went through the back channel.
  identity = `http://127.0.0.1:${String(await closedPort())}`;
  platform = await startPlatform({ env: { PLATFORM_ISSUER: identity, PLATFORM_EXTRA_RESOURCES: 'http://127.0.0.1:3000/mcp' } });
  tlsServer = createHttpsServer(platform.platform.app, pki.server);
  await listenOn(tlsServer, { host: '127.0.0.1', port: 0, portVariable: 'PLATFORM_TLS_PORT' });
  backChannel = `https://localhost:${String((tlsServer.address() as AddressInfo).port)}`;
}, 60_000);

afterAll(async () => {
  await closeServer(tlsServer);
  await platform.close();
  await agent.close();
});

const throughBackChannel = (fetch = trustingFetch) => backChannelFetch({ identities: [identity], backChannel, fetch });

describe('the platform reached through its back channel', () => {
  it("gives the app its client_credentials token: discovered and fetched over TLS, issued by the identity, for the platform API's identity", async () => {
    const tokens = new ApiTokenProvider({
      issuerUrl: identity,
      clientId: 'webhook-tools',
      clientSecret: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
      fetch: throughBackChannel(),
    });
    const claims = decodeJwt(await tokens.getToken());
    expect(claims.iss).toBe(identity);
    expect([claims.aud].flat()).toContain(identity);
  });

  it("exchanges a person's token for a delegated one at the gateway, through the same back channel", async () => {
    const tokens = createDelegatedTokens({
      issuerUrl: identity,
      clientId: 'mcp-gateway',
      clientSecret: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
      timeoutMs: 5_000,
      fetch: throughBackChannel(),
    });
    const app = new ApiTokenProvider({
      issuerUrl: identity,
      clientId: 'webhook-tools',
      clientSecret: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
      fetch: throughBackChannel(),
    });
    const actorToken = await app.getToken();
    // The person's token comes from the plain listener (the published port), as the demo's does.
    const caller = await personToken(platform.issuer, 'oscar', { resource: 'http://127.0.0.1:3000/mcp' });
    const delegated = decodeJwt(await tokens.get(caller, { appClientId: 'webhook-tools', actorToken: () => actorToken }));
    expect([delegated.iss, (delegated.act as { sub?: string } | undefined)?.sub]).toEqual([identity, 'webhook-tools']);
  });

  it('still checks the issuer: a back channel to a platform of another identity is a bad answer, not a token', async () => {
    const other = `http://127.0.0.1:${String(await closedPort())}`;
    const tokens = new ApiTokenProvider({
      issuerUrl: other,
      clientId: 'webhook-tools',
      clientSecret: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
      fetch: backChannelFetch({ identities: [other], backChannel, fetch: trustingFetch }),
    });
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'PLATFORM_BAD_RESPONSE' });
  });

  it('sends nothing to a back channel whose certificate does not chain to a trusted CA', async () => {
    const tokens = new ApiTokenProvider({
      issuerUrl: identity,
      clientId: 'webhook-tools',
      clientSecret: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
      fetch: throughBackChannel(globalThis.fetch),
    });
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
  });
});
