import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpClient, endpoint } from './client.ts';
import { readPlatformAnswer } from './platform-answer.ts';
import { listen, platformFailure } from '../testing/index.ts';

const httpClient = createHttpClient({ timeoutMs: 2_000 });
const schema = z.object({ id: z.number() });

async function answerFrom(handler: Parameters<typeof listen>[0], maxBytes?: number) {
  const server = await listen(handler);
  try {
    const response = await httpClient.get(endpoint(server.url, 'thing'), {});
    return await readPlatformAnswer(response, { what: 'GET /thing', schema, absent: [404], ...(maxBytes !== undefined && { maxBytes }) });
  } finally {
    await server.close();
  }
}

describe('readPlatformAnswer', () => {
  it('parses a 200 answer with the schema and answers undefined for an absent status', async () => {
    expect(await answerFrom((_req, res) => res.end('{"id":7}'))).toEqual({ id: 7 });
    expect(await answerFrom((_req, res) => res.writeHead(404).end('{"error":"not_found"}'))).toBeUndefined();
  });

  it('refuses a body larger than the cap as PLATFORM_BAD_RESPONSE when its length is declared', async () => {
    const error = await platformFailure(answerFrom((_req, res) => res.writeHead(200, { 'content-length': 5_000 }).end('x'.repeat(5_000)), 1_000));
    expect(error.code).toBe('PLATFORM_BAD_RESPONSE');
    expect(error.message).toContain('larger than 1000 bytes');
  });

  it('stops reading a streamed body at the cap, without holding the rest', async () => {
    let written = 0;
    const error = await platformFailure(
      answerFrom((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        // An endless answer: only the cap ends the read.
        const timer = setInterval(() => {
          written += 64 * 1024;
          res.write('x'.repeat(64 * 1024));
        }, 1);
        res.on('close', () => {
          clearInterval(timer);
        });
      }, 256 * 1024),
    );
    expect(error.code).toBe('PLATFORM_BAD_RESPONSE');
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it.each([
    ['not JSON', 'not json', 'PLATFORM_BAD_RESPONSE'],
    ['of another shape', '{"name":"x"}', 'PLATFORM_BAD_RESPONSE'],
  ])('refuses a body %s as %s', async (_case, body, code) => {
    expect((await platformFailure(answerFrom((_req, res) => res.end(body)))).code).toBe(code);
  });

  it.each([[500], [502], [503], [429]])('reports %i as PLATFORM_UNAVAILABLE, never as absent', async (status) => {
    expect((await platformFailure(answerFrom((_req, res) => res.writeHead(status).end()))).code).toBe('PLATFORM_UNAVAILABLE');
  });

  it('reports a status it does not expect (a 400) as PLATFORM_BAD_RESPONSE', async () => {
    expect((await platformFailure(answerFrom((_req, res) => res.writeHead(400).end()))).code).toBe('PLATFORM_BAD_RESPONSE');
  });
});
