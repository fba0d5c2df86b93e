import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { closedPort, listen, type Listening } from '@platform/tool-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/receiver.ts';
import { outgoingDelivery, samplePoint, testVault } from '../../test/outgoing-delivery.ts';
import { CredentialVault } from '../configs/credential-vault.ts';
import { deliveryUserAgent } from './envelope.ts';
import type { AttemptResult, OutgoingDelivery, WebhookSender } from './outgoing.ts';
import { createWebhookSender, type WebhookSenderOptions } from './webhook-sender.ts';

const vault = testVault;
const decryptCredentials = (stored: string, configId: string): string => vault.decrypt(stored, configId);
const sentAt = new Date('2025-03-04T05:06:07.089Z');
const point = samplePoint;
const secretToken = 'secret-token-8d1f7a';

const delivery = (url: string, overrides: Partial<OutgoingDelivery> = {}): OutgoingDelivery => outgoingDelivery({ url, ...overrides });

function auth(authType: OutgoingDelivery['authType'], payload: object): Partial<OutgoingDelivery> {
  return { authType, authPayloadEncrypted: vault.encrypt(JSON.stringify(payload), 'cfg-1') };
}

const bearer = (): Partial<OutgoingDelivery> => auth('Bearer', { token: secretToken });

let receiver: Receiver;
let sender: WebhookSender;
const cleanups: (() => Promise<void>)[] = [];

function newSender(options: Partial<WebhookSenderOptions> = {}): WebhookSender {
  const created = createWebhookSender({ decryptCredentials, allowPrivateTargets: true, now: () => sentAt, ...options });
  cleanups.push(() => created.close());
  return created;
}

beforeEach(async () => {
  receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  sender = newSender();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function errorOf(outcome: AttemptResult): string {
  return outcome.outcome === 'delivered' ? '' : outcome.error;
}

describe('the request', () => {
  it('posts the Realtime envelope with the platform headers', async () => {
    const outcome = await sender.send(delivery(`${receiver.url}/in?src=1`));
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 200, responsePrefix: '{}' });
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/in?src=1');
    expect(request?.body).toBe(`{"Timestamp":"2025-03-04T05:06:07.089Z","Metadata":{"Company":"42","GatewayId":"gw-7","Measurement":"temp"},"Point":${point}}`);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': deliveryUserAgent,
      'x-webhook-timestamp': '2025-03-04T05:06:07.089Z',
      'x-webhook-retry-count': '0',
    });
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['x-api-key']).toBeUndefined();
  });

  it('posts a Batch envelope with every point', async () => {
    const second = point.replace('21.5', '22');
    await sender.send(delivery(receiver.url, { mode: 'Batch', points: [point, second] }));
    expect(receiver.received[0]?.json).toEqual({
      Timestamp: '2025-03-04T05:06:07.089Z',
      Metadata: { Company: '42', GatewayId: 'gw-7', Measurement: 'temp' },
      Points: [JSON.parse(point), JSON.parse(second)],
    });
  });

  it.each(['POST', 'PUT', 'PATCH'] as const)('uses the configured method %s', async (method) => {
    await sender.send(delivery(receiver.url, { method }));
    expect(receiver.received[0]?.method).toBe(method);
  });

  it('sends no User-Agent and no X-Webhook-Timestamp without metadata headers', async () => {
    await sender.send(delivery(receiver.url, { includeMetadataHeaders: false }));
    const headers = receiver.received[0]?.headers;
    expect(headers?.['user-agent']).toBeUndefined();
    expect(headers?.['x-webhook-timestamp']).toBeUndefined();
    expect(headers?.['x-webhook-retry-count']).toBe('0');
  });

  it('counts retries in X-Webhook-Retry-Count, and leaves it out when switched off', async () => {
    await sender.send(delivery(receiver.url, { attempt: 3 }));
    await sender.send(delivery(receiver.url, { attempt: 3, includeRetryHeader: false }));
    expect(receiver.received[0]?.headers['x-webhook-retry-count']).toBe('3');
    expect(receiver.received[1]?.headers['x-webhook-retry-count']).toBeUndefined();
    expect(receiver.received[1]?.headers['user-agent']).toBe(deliveryUserAgent);
  });

  it('adds the configured custom headers', async () => {
    await sender.send(delivery(receiver.url, { customHeaders: '{"X-Source":"plant-3","X-Region":"eu"}' }));
    expect(receiver.received[0]?.headers).toMatchObject({ 'x-source': 'plant-3', 'x-region': 'eu' });
  });

  it.each([
    ['Bearer', { token: secretToken }, { authorization: `Bearer ${secretToken}` }],
    ['ApiKey', { apiKeyValue: 'key-5e1b2c' }, { 'x-api-key': 'key-5e1b2c' }],
    ['Basic', { username: 'ann', password: 'pässwörd€' }, { authorization: `Basic ${Buffer.from('ann:pässwörd€', 'utf8').toString('base64')}` }],
    ['Custom', { headers: { 'X-Signature-A': 'sig-1', 'X-Tenant': 'blue' } }, { 'x-signature-a': 'sig-1', 'x-tenant': 'blue' }],
  ] as const)('sends the %s credentials as the endpoint expects them', async (authType, payload, expected) => {
    const outcome = await sender.send(delivery(receiver.url, auth(authType, payload)));
    expect(outcome.outcome).toBe('delivered');
    expect(receiver.received[0]?.headers).toMatchObject(expected);
  });

  it('decodes a Basic password with non-ASCII characters as UTF-8 at the endpoint', async () => {
    await sender.send(delivery(receiver.url, auth('Basic', { username: 'ann', password: 'pässwörd€' })));
    const header = receiver.received[0]?.headers.authorization ?? '';
    expect(Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8')).toBe('ann:pässwörd€');
  });

  it('drops a delivery whose credentials do not decrypt, without sending it or quoting them', async () => {
    const stored = new CredentialVault([{ id: 'k9', key: randomBytes(32) }]).encrypt(JSON.stringify({ token: secretToken }), 'cfg-1');
    const outcome = await sender.send(delivery(receiver.url, { authType: 'Bearer', authPayloadEncrypted: stored }));
    expect(outcome).toMatchObject({
      outcome: 'dropped',
      status: null,
      error: 'the stored credentials for authType Bearer could not be decrypted (credential encrypted with key k9, which is not in the key ring)',
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('reuses kept-alive connections for deliveries to one endpoint', async () => {
    for (let sent = 0; sent < 6; sent += 1) await sender.send(delivery(receiver.url));
    // undici's pool opens a second connection for the request right after the first, then reuses both.
    expect(receiver.received).toHaveLength(6);
    expect(receiver.connections).toBeLessThanOrEqual(2);
  });
});

describe('the answer', () => {
  it.each([200, 201, 202, 204])('%i is delivered', async (status) => {
    receiver.respond(() => ({ status, body: status === 204 ? '' : 'ok' }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({ outcome: 'delivered', status, responsePrefix: status === 204 ? '' : 'ok' });
  });

  it.each([400, 401, 404, 410, 422])('%i is dropped, never retried', async (status) => {
    receiver.respond(() => ({ status, body: 'nope' }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({
      outcome: 'dropped',
      status,
      error: `the endpoint answered ${status}; a 4xx other than 429 is not retried`,
      responsePrefix: 'nope',
    });
  });

  it('429 is retried after the seconds Retry-After gives', async () => {
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({ outcome: 'retrying', status: 429, retryAfterMs: 120_000 });
  });

  it('429 is retried at the HTTP date Retry-After gives', async () => {
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': 'Tue, 04 Mar 2025 05:11:07 GMT' } }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({ outcome: 'retrying', status: 429, retryAfterMs: 299_911 });
  });

  it.each([500, 502, 504])('%i is retried', async (status) => {
    receiver.respond(() => ({ status }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({
      outcome: 'retrying',
      status,
      error: `the endpoint answered ${status}`,
      retryAfterMs: undefined,
    });
  });

  it('503 with Retry-After is retried then', async () => {
    receiver.respond(() => ({ status: 503, headers: { 'retry-after': '30' } }));
    expect(await sender.send(delivery(receiver.url))).toMatchObject({ outcome: 'retrying', status: 503, retryAfterMs: 30_000 });
  });

  it('does not follow a redirect, and keeps its query string out of the error', async () => {
    receiver.respond(() => ({ status: 301, headers: { location: '/moved?token=abc123' } }));
    const outcome = await sender.send(delivery(`${receiver.url}/in`));
    expect(outcome).toMatchObject({
      outcome: 'dropped',
      status: 301,
      error: `redirects are not followed (the endpoint answered 301 with Location ${receiver.url}/moved?...)`,
    });
    // A followed redirect would have been requested before the answer came back.
    expect(receiver.received).toHaveLength(1);
  });

  it('keeps only a prefix of a huge answer and finishes without reading the rest', async () => {
    let written = 0;
    let closed = false;
    const endless: Listening = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = (): void => {
        while (!response.destroyed && written < 1024 ** 3) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
      };
      response.once('close', () => (closed = true));
      pump();
    });
    cleanups.push(() => endless.close());
    const outcome = await sender.send(delivery(endless.url));
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 200, responsePrefix: 'x'.repeat(1024) });
    expect(outcome.durationMs).toBeLessThan(2_000);
    await expect.poll(() => closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('keeps as many bytes as configured', async () => {
    const small = newSender({ responsePrefixBytes: 5 });
    receiver.respond(() => ({ status: 200, body: 'abcdefghij' }));
    expect(await small.send(delivery(receiver.url))).toMatchObject({ responsePrefix: 'abcde' });
  });
});

describe('network failures', () => {
  it('retries an endpoint that never answers, after the request timeout', async () => {
    const quick = newSender({ requestTimeoutMs: 300 });
    receiver.respond(() => ({ hang: true }));
    const outcome = await quick.send(delivery(receiver.url));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null, error: 'timed out after 300 ms (the whole request)' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(2_000);
  });

  it('stops reading a body that stalls at the request timeout, and keeps the status', async () => {
    const quick = newSender({ requestTimeoutMs: 300 });
    const stalling = await listen((_request, response) => {
      response.writeHead(200);
      response.write('partial');
    });
    cleanups.push(() => stalling.close());
    const outcome = await quick.send(delivery(stalling.url));
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 200, responsePrefix: 'partial' });
    expect(outcome.durationMs).toBeLessThan(2_000);
  });

  it('retries a connection reset', async () => {
    receiver.respond(() => ({ reset: true }));
    const outcome = await sender.send(delivery(receiver.url));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null });
    expect(errorOf(outcome)).toMatch(/^(UND_ERR_SOCKET|ECONNRESET): /);
  });

  it('retries a refused connection', async () => {
    const port = await closedPort();
    const outcome = await sender.send(delivery(`http://127.0.0.1:${port}/in`));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null, error: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('retries a connect that does not finish in the connect timeout (a resolver that never answers)', async () => {
    const never: LookupFunction = () => undefined;
    const quick = newSender({ connectTimeoutMs: 200, lookup: never });
    const outcome = await quick.send(delivery('http://slow.example.com/in'));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null });
    expect(errorOf(outcome)).toMatch(/^UND_ERR_CONNECT_TIMEOUT: /);
    expect(outcome.durationMs).toBeLessThan(2_000);
  });

  it('retries a host name that does not resolve (DNS may be down for a while)', async () => {
    const notFound: LookupFunction = (hostname, _options, callback) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    };
    const outcome = await newSender({ lookup: notFound }).send(delivery('http://gone.example.com/in'));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null, error: 'ENOTFOUND: getaddrinfo ENOTFOUND gone.example.com' });
  });

  it('answers an abort by the caller with a retry', async () => {
    receiver.respond(() => ({ hang: true }));
    const controller = new AbortController();
    const sending = sender.send(delivery(receiver.url), controller.signal);
    await receiver.waitFor(1);
    controller.abort();
    expect(await sending).toMatchObject({ outcome: 'retrying', status: null, error: 'aborted: the sender was asked to stop before an answer came' });
  });

  it('keeps credentials, the query string and user information out of every error and prefix', async () => {
    const port = await closedPort();
    const quick = newSender({ requestTimeoutMs: 300 });
    const withSecrets = (url: string): OutgoingDelivery => delivery(url, bearer());
    receiver.respond((request, index) => {
      if (index === 0) return { hang: true };
      if (index === 1) return { reset: true };
      // An endpoint that echoes the request, its Authorization header included.
      return { status: index === 2 ? 500 : 401, body: `${request.path} ${request.headers.authorization ?? ''}` };
    });
    const outcomes = [
      await quick.send(withSecrets(`${receiver.url}/in?sig=query-secret-77`)),
      await quick.send(withSecrets(`${receiver.url}/in?sig=query-secret-77`)),
      await quick.send(withSecrets(`${receiver.url}/in?sig=query-secret-77`)),
      await quick.send(withSecrets(`${receiver.url}/in?sig=query-secret-77`)),
      await quick.send(withSecrets(`http://127.0.0.1:${port}/in?sig=query-secret-77`)),
      await quick.send(withSecrets(`http://user:pass-secret-42@127.0.0.1:${port}/in`)),
    ];
    expect(outcomes.map((result) => result.outcome)).toEqual(['retrying', 'retrying', 'retrying', 'dropped', 'retrying', 'retrying']);
    for (const outcome of outcomes) {
      const text = `${errorOf(outcome)} ${outcome.responsePrefix}`;
      expect(text).not.toContain(secretToken);
      expect(text).not.toContain('query-secret-77');
      expect(text).not.toContain('pass-secret-42');
    }
    expect(outcomes[2]?.responsePrefix).toBe('/in?[redacted] [redacted]');
  });

  it('keeps an echoed credential out of the prefix in its encoded forms, and when the prefix cuts through it', async () => {
    const short = newSender({ responsePrefixBytes: 40 });
    const echoes = [
      (auth: string) => encodeURIComponent(auth),
      (auth: string) => Buffer.from(auth).toString('base64'),
      (auth: string) => JSON.stringify({ echoed: auth }),
      // The prefix ends inside the token: all of it but its end would show.
      (auth: string) => `${'x'.repeat(40 - auth.length + 3)}${auth}`,
    ];
    for (const echo of echoes) {
      receiver.respond((request) => ({ status: 200, body: echo(request.headers.authorization ?? '') }));
      const outcome = await short.send(delivery(receiver.url, bearer()));
      expect(outcome.outcome).toBe('delivered');
      expect(outcome.responsePrefix).not.toContain(secretToken.slice(0, 8));
      expect(outcome.responsePrefix).not.toContain(Buffer.from(`Bearer ${secretToken}`).toString('base64').slice(0, 12));
    }
  });
});

describe('private targets', () => {
  let strict: WebhookSender;
  beforeEach(() => {
    strict = newSender({ allowPrivateTargets: false });
  });

  it.each([
    ['127.0.0.1', 'the target is 127.0.0.1, a loopback address'],
    ['[::1]', 'the target is ::1, a loopback address'],
    ['[::ffff:127.0.0.1]', 'the target is ::ffff:7f00:1, an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['10.0.0.1', 'the target is 10.0.0.1, a private address'],
    ['169.254.169.254', 'the target is 169.254.169.254, a cloud metadata address'],
    ['[fd00::1]', 'the target is fd00::1, a unique-local (fc00::/7) address'],
    ['100.64.0.1', 'the target is 100.64.0.1, a carrier-grade NAT (100.64.0.0/10) address'],
    ['0.0.0.0', 'the target is 0.0.0.0, an unspecified address'],
    // The URL parser turns these into 127.0.0.1 before anything connects.
    ['2130706433', 'the target is 127.0.0.1, a loopback address'],
    ['0x7f.1', 'the target is 127.0.0.1, a loopback address'],
  ])('drops a delivery to %s, naming the address class', async (host, message) => {
    const outcome = await strict.send(delivery(`http://${host}:${receiver.port}/in`));
    expect(outcome).toMatchObject({
      outcome: 'dropped',
      status: null,
      error: `${message}; deliveries to private and special-purpose addresses are refused`,
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('retries a delivery to a host name that resolves to loopback, as it would one that does not resolve, saying neither', async () => {
    const outcome = await strict.send(delivery(`http://localhost:${receiver.port}/in`));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null, error: 'ENOTFOUND: the target host localhost did not resolve to a public address' });
    const missing = await strict.send(delivery(`http://no-such-host.invalid:${receiver.port}/in`));
    expect(missing).toMatchObject({
      outcome: 'retrying',
      status: null,
      error: 'ENOTFOUND: the target host no-such-host.invalid did not resolve to a public address',
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a delivery to a host name rebound from a public to a private address', async () => {
    const answers: LookupAddress[][] = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let calls = 0;
    const rebinding: LookupFunction = (_hostname, _options, callback) => {
      const answer = answers[Math.min(calls, answers.length - 1)] ?? [];
      calls += 1;
      callback(null, answer);
    };
    // An earlier check (when the configuration was written, say) sees the public answer...
    const first = await new Promise<unknown>((resolve) => {
      rebinding('rebind.example.com', { all: true }, (_error, address) => {
        resolve(address);
      });
    });
    expect(first).toEqual([{ address: '93.184.216.34', family: 4 }]);
    // ...and the connection, resolving again, gets the private one, which is refused.
    const outcome = await newSender({ allowPrivateTargets: false, lookup: rebinding }).send(delivery(`http://rebind.example.com:${receiver.port}/in`));
    expect(outcome).toMatchObject({ outcome: 'retrying', status: null });
    expect(errorOf(outcome)).toBe('ENOTFOUND: the target host rebind.example.com did not resolve to a public address');
    expect(receiver.received).toHaveLength(0);
  });

  it.each(['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost'])('delivers to %s when private targets are allowed', async (host) => {
    expect(await sender.send(delivery(`http://${host}:${receiver.port}/in`))).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(receiver.received).toHaveLength(1);
  });

  it('delivers to ::1 when private targets are allowed, and refuses it otherwise', async () => {
    const ipv6 = await startReceiver({ host: '::1' });
    cleanups.push(() => ipv6.close());
    expect(await sender.send(delivery(`${ipv6.url}/in`))).toMatchObject({ outcome: 'delivered' });
    expect(await strict.send(delivery(`${ipv6.url}/in`))).toMatchObject({ outcome: 'dropped' });
    expect(ipv6.received).toHaveLength(1);
  });

  it('drops a delivery to a cloud metadata address even when private targets are allowed', async () => {
    expect(await sender.send(delivery('http://169.254.169.254/latest/meta-data/'))).toMatchObject({
      outcome: 'dropped',
      status: null,
      error: 'the target is 169.254.169.254, a cloud metadata address; deliveries to private and special-purpose addresses are refused',
    });
    expect(await sender.send(delivery('http://[::ffff:169.254.169.254]/'))).toMatchObject({ outcome: 'dropped', status: null });
  });

  it('delivers to a host name resolving to a private address when allowed', async () => {
    const lookup: LookupFunction = (_hostname, _options, callback) => {
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const outcome = await newSender({ allowPrivateTargets: true, lookup }).send(delivery(`http://internal.example.com:${receiver.port}/in`));
    expect(outcome).toMatchObject({ outcome: 'delivered' });
  });
});

describe('createWebhookSender', () => {
  it('refuses a timeout that is not a positive whole number, naming the option', () => {
    expect(() => createWebhookSender({ decryptCredentials, allowPrivateTargets: false, requestTimeoutMs: 0 })).toThrow(
      'createWebhookSender: requestTimeoutMs must be a whole number of at least 1 (got 0)',
    );
  });
});
