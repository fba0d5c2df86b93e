import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { defaultCatalogLimits, measureListing, toolBytes } from './catalog-limits.ts';
import { roomProblem, type Occupant } from './registration-room.ts';
import { RegistryError } from './registry-errors.ts';
import { announcedTool } from '../../test/registry-harness.ts';

const tool = announcedTool;

const refusal = (run: () => unknown): RegistryError => {
  try {
    run();
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw error;
  }
  throw new Error('nothing was refused');
};

describe('measureListing', () => {
  it('counts the bytes a client is sent of each tool, in UTF-8', () => {
    expect(toolBytes(tool('a', 'é'))).toBe(1 + 2 + '{"type":"object"}'.length);
    expect(measureListing([tool('a'), tool('b')], defaultCatalogLimits)).toBe(2 * toolBytes(tool('a')));
  });

  it.each([
    [
      'too many tools',
      () => Array.from({ length: 129 }, (_unused, index) => tool(`t${index}`)),
      'offers 129 tools; a service may offer at most 128 (REGISTRY_MAX_TOOLS_PER_SERVICE)',
    ],
    [
      'a tool too large',
      () => [tool('big', 'x'.repeat(64 * 1024))],
      'The tool "big" takes 65556 bytes (its description and schemas); a tool may take at most 65536 (REGISTRY_MAX_TOOL_BYTES)',
    ],
    [
      'a service too large',
      () => Array.from({ length: 9 }, (_unused, index) => tool(`t${index}`, 'x'.repeat(60_000))),
      'one registration may take at most 524288 (REGISTRY_MAX_SERVICE_BYTES)',
    ],
  ])('refuses %s with RESOURCE_EXHAUSTED naming the limit and its setting', (_case, tools, message) => {
    const error = refusal(() => measureListing(tools(), defaultCatalogLimits));

    expect(error.status).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.message).toContain(message);
  });
});

describe('roomProblem', () => {
  const rules = { maxRegistrations: 3, maxRegistrationsPerApp: 2, limits: { ...defaultCatalogLimits, maxAppBytes: 1000, maxCatalogBytes: 1500 } };
  const at = (appClientId: string, bytes: number): Occupant => ({ appClientId, bytes });

  it('takes a registration within every limit', () => {
    expect(roomProblem([at('a', 400)], { appClientId: 'a', bytes: 500, replacing: undefined }, rules)).toBeUndefined();
  });

  it('refuses bytes past the app’s share and past the whole catalog, naming each setting', () => {
    expect(roomProblem([at('a', 600)], { appClientId: 'a', bytes: 500, replacing: undefined }, rules)?.message).toContain('(REGISTRY_MAX_APP_BYTES)');
    expect(roomProblem([at('a', 900), at('b', 500)], { appClientId: 'c', bytes: 200, replacing: undefined }, rules)?.message).toContain(
      'REGISTRY_MAX_CATALOG_BYTES)',
    );
  });

  it('sets aside what the registration it replaces takes, and counts it as no new place', () => {
    const old = at('a', 900);
    expect(roomProblem([old, at('a', 50)], { appClientId: 'a', bytes: 900, replacing: old }, rules)).toBeUndefined();
    expect(roomProblem([old, at('a', 50)], { appClientId: 'a', bytes: 10, replacing: undefined }, rules)?.code).toBe('TOO_MANY_REGISTRATIONS_OF_APP');
    expect(roomProblem([at('a', 1), at('b', 1), at('c', 1)], { appClientId: 'd', bytes: 1, replacing: undefined }, rules)?.code).toBe('TOO_MANY_REGISTRATIONS');
  });
});
