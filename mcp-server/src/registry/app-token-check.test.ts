// The registry's caller check against the real dev platform's GET /api/apps/me, and against
// stand-ins for an unreachable or broken platform.
import { status } from '@grpc/grpc-js';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { createHttpClient } from '@platform/tool-sdk/internal';
import { closedPort, listen, rejectionOf, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createAppTokenCheck } from './app-token-check.ts';
import { tokenOf } from '../../test/registry-harness.ts';
import { RegistryError } from './registry-errors.ts';

const platform = startedForTests(() => startPlatform());
const httpClient = createHttpClient({ timeoutMs: 5_000 });
const checkAt = (apiBaseUrl: string, cacheTtlSeconds = 60) => createAppTokenCheck({ apiBaseUrl, httpClient, cacheTtlSeconds });

const refusal = (answer: Promise<unknown>): Promise<RegistryError> => rejectionOf(answer, RegistryError);

describe("an app's client-credentials token", () => {
  it('names the app it belongs to, and is kept as the caller’s token', async () => {
    const token = await tokenOf(platform(), 'webhook-tools');

    expect(await checkAt(platform().issuer)([`Bearer ${token}`])).toEqual({ clientId: 'webhook-tools', appKey: 'webhook-tools', toolPublisher: true, token });
  });

  it("carries the platform's word that an app is no tool publisher", async () => {
    const token = await tokenOf(platform(), 'fleet-insights');

    expect(await checkAt(platform().issuer)([`Bearer ${token}`])).toMatchObject({ clientId: 'fleet-insights', appKey: 'fleet-insights', toolPublisher: false });
  });

  it('of a client linked to no app is refused with PERMISSION_DENIED naming the client', async () => {
    const error = await refusal(checkAt(platform().issuer)([`Bearer ${await tokenOf(platform(), 'legacy-sync')}`]));

    expect(error.status).toBe(status.PERMISSION_DENIED);
    expect(error.message).toContain('Client legacy-sync is linked to no app; an administrator must link it');
  });
});

describe('a token that is not an app’s', () => {
  it.each([
    ['no authorization at all', []],
    ['an empty value', ['']],
    ['another scheme', ['Basic d2ViaG9vay10b29sczpzZWNyZXQ=']],
    ['a bearer with a space inside', ['Bearer two words']],
    ['two authorization entries', ['Bearer one', 'Bearer two']],
    ['a binary value', [Buffer.from('Bearer x')]],
  ])('is UNAUTHENTICATED without asking the platform: %s', async (_case, authorization) => {
    const error = await refusal(checkAt(platform().issuer)(authorization));

    expect(error.status).toBe(status.UNAUTHENTICATED);
    expect(error.message).toContain("an app's client-credentials token is needed");
  });

  it("is UNAUTHENTICATED for a person's token (the platform answers 403)", async () => {
    const error = await refusal(checkAt(platform().issuer)([`Bearer ${await personToken(platform().issuer, 'oscar')}`]));

    expect(error.status).toBe(status.UNAUTHENTICATED);
    expect(error.message).toContain("an app's client-credentials token is needed");
  });

  it('is UNAUTHENTICATED for a token the platform does not know (401)', async () => {
    const error = await refusal(checkAt(platform().issuer)(['Bearer not-a-token-the-platform-issued']));

    expect(error.status).toBe(status.UNAUTHENTICATED);
  });
});

describe('the platform', () => {
  it('is asked once per token while the success is cached, again for a new token, and every time for a refused one', async () => {
    const asked: string[] = [];
    const stand = await listen((request, response) => {
      const authorization = request.headers.authorization ?? '';
      asked.push(authorization);
      response.setHeader('content-type', 'application/json');
      if (authorization === 'Bearer refused') response.writeHead(401).end('{}');
      else response.end(JSON.stringify({ clientId: 'webhook-tools', appKey: 'webhook-tools', name: 'Webhook tools' }));
    });
    try {
      const check = checkAt(stand.url);
      await check(['Bearer first']);
      await check(['Bearer first']);
      await check(['Bearer second']);
      await refusal(check(['Bearer refused']));
      await refusal(check(['Bearer refused']));

      expect(asked).toEqual(['Bearer first', 'Bearer second', 'Bearer refused', 'Bearer refused']);
    } finally {
      await stand.close();
    }
  });

  it('that cannot be reached makes the check UNAVAILABLE, never UNAUTHENTICATED', async () => {
    const error = await refusal(checkAt(`http://127.0.0.1:${await closedPort()}`)(['Bearer some-app-token']));

    expect(error.status).toBe(status.UNAVAILABLE);
    expect(error.message).toContain('could not be reached');
  });

  it.each([
    ['a server error', 500, '{"error":"boom"}'],
    ['an overloaded answer', 503, ''],
    ['a body that is not JSON', 200, '<html>maintenance</html>'],
    ['an answer of another shape', 200, '{"id":"u-1"}'],
  ])('answering %s makes the check UNAVAILABLE', async (_case, statusCode, body) => {
    const stand = await listen((_request, response) => {
      response.writeHead(statusCode, { 'content-type': 'application/json' }).end(body);
    });
    try {
      const error = await refusal(checkAt(stand.url)(['Bearer some-app-token']));

      expect(error.status).toBe(status.UNAVAILABLE);
    } finally {
      await stand.close();
    }
  });
});
