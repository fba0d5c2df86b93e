// The cached caller check: the hit path per lookup, next to a bare Map lookup; and the heap held by
// 100,000 distinct tokens under a 10,000-entry bound, next to the same tokens in an unbounded Map.
import { spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { UnsecuredJWT } from 'jose';
import { collectGarbage, nanosecondsPerOperation, printComparison } from '@platform/devtools/bench-report';
import { CachedTokenResolver } from '../src/caller/cached-token-resolver.ts';
import { toCaller, type Caller } from '../src/caller/caller.ts';
import { createHttpClient } from '../src/http/client.ts';
import { createCallerCheck } from '../src/caller/check-caller.ts';
import { resolveCaller } from '../src/caller/resolve-caller.ts';
import { startPlatformFixture } from '../src/testing/index.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const apiBaseUrl = 'http://127.0.0.1:4000';
const batch = 1_000;
const hot = 1_000;
const nowSeconds = Math.floor(Date.now() / 1000);

/** A delegated-token-sized JWT (the SDK never verifies it, so no signature is needed). */
function token(i: number): string {
  return new UnsecuredJWT({
    sub: `user-${i}`,
    act: { sub: 'webhook-tools' },
    aud: apiBaseUrl,
    scope: 'api',
    jti: crypto.randomUUID(),
    iss: apiBaseUrl,
  })
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + 3600)
    .encode();
}

function caller(i: number): Caller {
  return toCaller({
    id: `user-${i}`,
    audience: [apiBaseUrl],
    companies: [
      { id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: ['device-overview:view', 'device-overview:manage', 'webhook-tools:run'] },
      { id: 2, name: 'Beta Sensors', isOwner: false, roles: [], permissions: ['device-overview:view'] },
    ],
  });
}

// ---- bounded heap: each side measured in a fresh process so neither sees the other's garbage ----
const distinct = 100_000;
const bound = 10_000;

async function measureHeap(kind: 'bounded' | 'map'): Promise<void> {
  const many = Array.from({ length: distinct }, (_, i) => token(i));
  const keyer = new CachedTokenResolver<Caller>({ scope: apiBaseUrl, ttlSeconds: 3600 });
  const holder: { structure?: CachedTokenResolver<Caller> | Map<string, Caller> } = {};
  if (kind === 'bounded') {
    const c = new CachedTokenResolver<Caller>({ scope: apiBaseUrl, ttlSeconds: 3600, maxEntries: bound });
    for (const [i, t] of many.entries()) await c.resolve(t, () => Promise.resolve(caller(i)));
    holder.structure = c;
  } else {
    const m = new Map<string, Caller>();
    for (const [i, t] of many.entries()) m.set(keyer.keyOf(t), caller(i));
    holder.structure = m;
  }
  // What the structure holds = heap with it - heap once it alone is dropped; the tokens stay alive
  // throughout (V8 changes how a string is stored once it has been hashed, so a before/after
  // difference around the filling would count that too).
  collectGarbage();
  const withIt = process.memoryUsage().heapUsed;
  const size = holder.structure.size;
  delete holder.structure;
  collectGarbage();
  const without = process.memoryUsage().heapUsed;
  if (many.length !== distinct) throw new Error('tokens lost');
  console.log(JSON.stringify({ bytes: withIt - without, size }));
}

function heapInChild(kind: 'bounded' | 'map'): { bytes: number; size: number } {
  const run = spawnSync(process.execPath, [sourceCondition, '--expose-gc', import.meta.filename, `--heap=${kind}`], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`heap measurement failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { bytes: number; size: number };
}

const heapMode = process.argv.find((arg) => arg.startsWith('--heap='))?.slice('--heap='.length);
if (heapMode === 'bounded' || heapMode === 'map') {
  await measureHeap(heapMode);
  process.exit(0);
}

// ---- hit path ----
const tokens = Array.from({ length: hot }, (_, i) => token(i));
const cache = new CachedTokenResolver<Caller>({ scope: apiBaseUrl, ttlSeconds: 3600 });
const httpClient = createHttpClient();
let checks = 0;
for (const [i, t] of tokens.entries()) {
  await cache.resolve(t, () => {
    checks += 1;
    return Promise.resolve(caller(i));
  });
}
// The whole caller check every service runs (header parsing, the cache, the audience and actor
// rules), primed once per token against a stand-in /api/me on loopback.
const platform = await startPlatformFixture();
const companies = [{ id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: ['device-overview:view'] }];
for (const [i, t] of tokens.entries()) platform.stage(t, { id: `user-${i}`, audience: [platform.url], actor: { clientId: 'webhook-tools' }, companies });
const checkCaller = createCallerCheck({
  apiBaseUrl: platform.url,
  audience: platform.url,
  httpClient: createHttpClient(),
  cacheTtlSeconds: 3600,
  actor: { clientId: 'webhook-tools' },
});
const headers = tokens.map((t) => `Bearer ${t}`);
for (const header of headers) if (!(await checkCaller(header)).ok) throw new Error('priming the caller check failed');

const map = new Map(tokens.map((t, i) => [cache.keyOf(t), caller(i)]));
const mapKeys = [...map.keys()];
const unreachable = () => Promise.reject(new Error('a cache hit must not reach the platform'));

let sink: unknown;
const figures = await nanosecondsPerOperation(
  {
    'crypto.hash sha256 of the token': () => {
      for (let i = 0; i < batch; i++) sink = hash('sha256', `${apiBaseUrl}\n${tokens[i % hot] ?? ''}`, 'base64url');
    },
    'bare Map.get': () => {
      for (let i = 0; i < batch; i++) sink = map.get(mapKeys[i % hot] ?? '');
    },
    'CachedTokenResolver.resolve (hit)': async () => {
      for (let i = 0; i < batch; i++) sink = await cache.resolve(tokens[i % hot] ?? '', unreachable);
    },
    'resolveCaller with cache (hit)': async () => {
      for (let i = 0; i < batch; i++) sink = await resolveCaller(tokens[i % hot] ?? '', httpClient, apiBaseUrl, cache, 3600);
    },
    'createCallerCheck (hit)': async () => {
      for (let i = 0; i < batch; i++) sink = await checkCaller(headers[i % hot]);
    },
  },
  batch,
);
if (checks !== hot || sink === undefined || platform.calls() !== hot) throw new Error('the hit path reached the platform');
await platform.close();

const bare = { name: 'bare Map.get (hashed key, same run)', value: figures['bare Map.get'] ?? NaN, unit: 'ns/lookup' };
printComparison(
  'Cached caller check, hit path (SHA-256 of a 275-byte delegated token + bounded LRU + expiry check)',
  { name: 'resolveCaller(token, ..., cache) on a hit', value: figures['resolveCaller with cache (hit)'] ?? NaN, unit: 'ns/lookup' },
  bare,
);
printComparison(
  'The same hit path next to the SHA-256 it must compute (SPEC: the key is a hash of the whole token)',
  { name: 'resolveCaller(token, ..., cache) on a hit', value: figures['resolveCaller with cache (hit)'] ?? NaN, unit: 'ns/lookup' },
  { name: 'crypto.hash sha256 alone (same run)', value: figures['crypto.hash sha256 of the token'] ?? NaN, unit: 'ns/hash' },
);
printComparison(
  'The caller check every service runs (Authorization header to caller: parse, cache hit, audience and actor rules)',
  { name: 'createCallerCheck(header) on a hit', value: figures['createCallerCheck (hit)'] ?? NaN, unit: 'ns/check' },
  { name: 'resolveCaller(token, ..., cache) on a hit (same run)', value: figures['resolveCaller with cache (hit)'] ?? NaN, unit: 'ns/lookup' },
);
printComparison(
  'Cache alone',
  { name: 'CachedTokenResolver.resolve on a hit', value: figures['CachedTokenResolver.resolve (hit)'] ?? NaN, unit: 'ns/lookup' },
  bare,
);

const bounded = heapInChild('bounded');
const unbounded = heapInChild('map');
if (bounded.size !== bound) throw new Error(`expected ${bound} entries, found ${bounded.size}`);
printComparison(
  `Heap held after ${distinct.toLocaleString('en-US')} distinct tokens (bound ${bound.toLocaleString('en-US')}; ${bounded.size.toLocaleString('en-US')} kept)`,
  { name: `CachedTokenResolver, maxEntries ${bound.toLocaleString('en-US')}`, value: bounded.bytes / 2 ** 20, unit: 'MiB' },
  { name: `unbounded Map of the same ${unbounded.size.toLocaleString('en-US')} entries`, value: unbounded.bytes / 2 ** 20, unit: 'MiB' },
);
