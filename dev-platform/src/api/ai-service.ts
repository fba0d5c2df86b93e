// An "other platform service" (an embeddings stand-in at its own address). It authenticates callers
// as the platform API does, for the audience the platform's services share, so a token issued for
// another resource (the MCP server) is refused; and a token carrying `act` (a delegated token) is
// invalid here: 401 for both.
import { hash } from 'node:crypto';
import express, { type Express } from 'express';
import { z } from 'zod';
import { ApiError, apiErrorHandler, parseBody } from './api-error.ts';
import type { Authenticator } from './credential-check.ts';
import { principalOf, requireAuthentication } from './require-authentication.ts';
import { createJsonBodyParser } from './json-body.ts';
import type { Logger } from '@platform/tool-sdk';
import { createRequestLogging } from '@platform/tool-sdk/internal';

const dimensions = 8;

/** A deterministic unit vector for a text: enough for a stand-in. */
function embed(text: string): number[] {
  const digest = hash('sha256', text, 'buffer');
  const vector = Array.from({ length: dimensions }, (_, i) => digest.readInt16BE(i * 2) / 32768);
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

export function createAiService(options: {
  authenticator: Authenticator;
  /** The audience the platform's services share (the platform API's base). */
  audience: string;
  logger: Logger;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(createRequestLogging(options.logger));
  app.use(requireAuthentication(options.authenticator, [options.audience]), createJsonBodyParser({ limit: '256kb' }));

  app.post('/v1/embeddings', (req, res) => {
    if (principalOf(res).kind === 'delegated') throw new ApiError('invalid_token', 'delegated tokens are not accepted by this service');
    const body = parseBody(z.strictObject({ input: z.union([z.string(), z.array(z.string()).min(1).max(64)]), model: z.string().optional() }), req);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    res.json({ object: 'list', model: 'dev-embedding-8', data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })) });
  });

  app.use((_req, _res) => {
    throw new ApiError('not_found', 'no such endpoint');
  });
  app.use(apiErrorHandler);
  return app;
}
