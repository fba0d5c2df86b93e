// A small stand-in for the platform's GET /api/me on a real loopback server: tokens staged with the
// caller they stand for (or a failure), every other credential refused with 401. For the SDK's own
// tests and a tool service's unit tests; whole-stack tests use the dev platform itself.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MeAnswer } from '../caller/caller.ts';
import { listen } from './loopback-server.ts';

/** A caller as GET /api/me answers it. */
export type StagedCaller = MeAnswer;

/** A staged answer other than a caller: a status with a raw body (a 503, garbage, a huge body). */
export interface StagedFailure {
  /** The HTTP status the stand-in platform answers with. */
  readonly status: number;
  /** The body it sends with it; empty when not given. */
  readonly body?: string;
}

/** A stand-in for the platform's `GET /api/me` on a loopback server. */
export interface PlatformFixture {
  /** The platform API's base address. */
  readonly url: string;
  /** Answers `Authorization: <scheme> <token>` with `answer` from now on. */
  stage(token: string, answer: StagedCaller | StagedFailure, scheme?: 'Bearer' | 'ApiToken'): void;
  /** How many GET /api/me requests arrived with this token (any scheme), or in all. */
  calls(token?: string): number;
  /** Stops the server. */
  close(): Promise<void>;
}

const isFailure = (answer: StagedCaller | StagedFailure): answer is StagedFailure => 'status' in answer;

/**
 * Starts a `PlatformFixture`: every token refused until it is staged.
 *
 * @example
 * ```ts
 * const platform = await startPlatformFixture();
 * platform.stage('token-a', { id: 'u-1', audience: [platform.url], actor: { clientId: 'my-app' }, companies: [] });
 * ```
 */
export async function startPlatformFixture(): Promise<PlatformFixture> {
  const staged = new Map<string, StagedCaller | StagedFailure>();
  const counts = new Map<string, number>();
  let total = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const authorization = req.headers.authorization ?? '';
    if (req.method !== 'GET' || req.url !== '/api/me') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    total += 1;
    const token = authorization.replace(/^\S+ /, '');
    counts.set(token, (counts.get(token) ?? 0) + 1);
    const answer = staged.get(authorization);
    if (!answer) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
    } else if (isFailure(answer)) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
  };
  const server = await listen(handle);
  return {
    url: server.url,
    stage(token, answer, scheme = 'Bearer') {
      staged.set(`${scheme} ${token}`, answer);
    },
    calls: (token) => (token === undefined ? total : (counts.get(token) ?? 0)),
    close: () => server.close(),
  };
}
