// .env.example is the one list of every variable the stack reads: each name a settings loader
// declares, or a script of the stack declares for itself, is in it. The names come from the
// loaders' own shapes, so a variable added to one is a variable .env.example must list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { platformMcpVariables } from '@platform/tool-sdk/internal';
import { metricsAccessVariables, telemetryVariables, toolMetricsVariables } from '@platform/tool-sdk/observability';
import { describe, expect, it } from 'vitest';
import { devPlatformVariables } from '../../../dev-platform/src/settings.ts';
import { mcpServerVariables } from '../../../mcp-server/src/settings.ts';
import { toolServiceVariables } from '../../../tool-service/src/settings.ts';
import { delivererVariables, webhookApiVariables } from '../../../webhook-api/src/settings.ts';
import { scriptVariables } from '../stack/settings.ts';
import { repoRoot } from '../repo-root.ts';

const declaredByLoaders: Readonly<Record<string, readonly string[]>> = {
  'the tool SDK': platformMcpVariables,
  'dev-platform': devPlatformVariables,
  'mcp-server': mcpServerVariables,
  'tool-service': toolServiceVariables,
  'webhook-api': webhookApiVariables,
  'the deliverer': delivererVariables,
  'tracing (every service)': telemetryVariables,
  'the tool SDK’s metrics': toolMetricsVariables,
  'mcp-server’s metrics': metricsAccessVariables('MCP_'),
  'dev-platform’s metrics': metricsAccessVariables('PLATFORM_'),
};

describe('.env.example', () => {
  const listed = readFileSync(join(repoRoot, '.env.example'), 'utf8');
  const named = (name: string) => new RegExp(`(^|[^A-Z0-9_])${name}=`, 'm').test(listed);

  it('lists every variable a settings loader declares', () => {
    const loaders = Object.entries(declaredByLoaders);
    for (const [loader, variables] of loaders) expect(variables.length, loader).toBeGreaterThan(1);
    const missing = loaders.flatMap(([loader, variables]) => variables.filter((name) => !named(name)).map((name) => `${name} (${loader})`));
    expect(missing).toEqual([]);
  });

  it('lists every variable npm start, start:pg and the demo declare for themselves', () => {
    expect(scriptVariables).toEqual(expect.arrayContaining(['LOG_FORMAT', 'DEMO_RECEIVER_PORT', 'STACK_POSTGRES_PORT']));
    expect(scriptVariables.filter((name) => !named(name))).toEqual([]);
  });

  it('says "Copy to .env", and a copy changes nothing until a line is uncommented: every assignment in it is a comment', () => {
    expect(listed).toContain('Copy to .env');
    // As Node's --env-file reads it: a copy must not pin an address that follows a port (PLATFORM_API_BASE_URL),
    // nor undo what npm start sets (WEBHOOK_ALLOW_PRIVATE_TARGETS for the demo's receiver).
    expect(parseEnv(listed)).toEqual({});
  });
});
