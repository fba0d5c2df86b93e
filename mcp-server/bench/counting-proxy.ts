// An HTTP proxy in front of the dev platform that counts what is asked of it, token requests by
// grant type: the gateway benchmark reads it to show that warm calls make no token exchange and no
// GET /api/me (the delegated tokens and the caller checks are reused from memory).
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type Listening } from '@platform/tool-sdk/testing';

export interface CountingProxy extends Listening {
  /** Where requests are forwarded: the platform's own address. */
  target: string;
  /** Requests seen so far, by `METHOD /path`, a token request as `POST /token <grant type>`. */
  counts(): Record<string, number>;
}

const grantPrefix = 'urn:ietf:params:oauth:grant-type:';

function counted(method: string, path: string, body: Buffer): string {
  if (path !== '/token') return `${method} ${path}`;
  const grant = new URLSearchParams(body.toString('latin1')).get('grant_type') ?? 'no grant_type';
  return `${method} ${path} ${grant.startsWith(grantPrefix) ? grant.slice(grantPrefix.length) : grant}`;
}

export async function startCountingProxy(): Promise<CountingProxy> {
  const counts = new Map<string, number>();
  const state = { target: '' };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = counted(req.method ?? 'GET', (req.url ?? '/').replace(/\?.*$/s, ''), body);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const upstream = httpRequest(`${state.target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  };
  const listening = await listen(forward);
  return Object.assign(state, listening, { counts: () => Object.fromEntries(counts) });
}
