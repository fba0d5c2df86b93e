import { describe, expect, it } from 'vitest';
import { placeOf, startCpuProfile } from './cpu-profile.ts';

describe('placeOf', () => {
  it('names a package, a file of the repository, Node and the VM', () => {
    expect(placeOf('file:///srv/app/node_modules/@grpc/grpc-js/build/src/call.js', 'write')).toBe('@grpc/grpc-js');
    expect(placeOf('file:///srv/app/node_modules/zod/v4/core.js', 'parse')).toBe('zod');
    expect(placeOf(new URL('../../mcp-server/src/main.ts', import.meta.url).href, 'main')).toBe('mcp-server/src/main.ts');
    expect(placeOf('node:internal/http2/core', 'onSessionHeaders')).toBe('node: internals');
    expect(placeOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(placeOf('', 'memcpy')).toBe('(native)');
  });
});

describe('startCpuProfile', () => {
  it('sums the samples of work done meanwhile, by place and by function', async () => {
    const stop = await startCpuProfile(100);
    const until = performance.now() + 60;
    let spun = 0;
    while (performance.now() < until) spun += Math.sqrt(spun + 1);
    const profile = await stop();
    expect(spun).toBeGreaterThan(0);
    expect(profile.totalMicros).toBeGreaterThan(30_000);
    expect(Object.values(profile.byPlace).reduce((sum, micros) => sum + micros, 0)).toBeCloseTo(profile.totalMicros, 0);
    expect(Object.keys(profile.byPlace)).toContain('devtools/src/cpu-profile.test.ts');
  });
});
