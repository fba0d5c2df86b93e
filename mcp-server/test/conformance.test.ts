// The official MCP conformance suite against the gateway, as a client would meet it: signed in
// with a person's token (added by a preloaded module, since the suite has no option for one), with
// the suite's fixture tools served behind the gateway by a tool service on the SDK
// (examples/conformance-tools.ts, as the plain-named app). Each revision's requirement set passes
// with the baseline, which names every scenario that does not apply and why; the scenarios of tool
// calls, questions and the stateless revision must each have run and passed with no warning.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { conformanceTaskScenarios, runConformance } from '@platform/devtools/conformance-suite';
import { describe, expect, it } from 'vitest';
import { conformanceToolsForTests, stackForTests } from './harness.ts';

const stack = stackForTests();
conformanceToolsForTests(stack);

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

const baseline = resolve(import.meta.dirname, 'conformance-baseline.yml');

/** Runs the suite with `selection`: its exit code, the checks of every scenario run, and what it printed. */
async function conformance(...selection: string[]): Promise<{ exitCode: number; checks: (Check & { scenario: string })[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  const { exitCode, output } = await runConformance(
    process.env,
    stack().mcpUrl,
    await stack().tokenFor('oscar'),
    [...selection, '-o', out, '--expected-failures', baseline],
    240_000,
  );
  const checks = readdirSync(out).flatMap((results) =>
    (JSON.parse(readFileSync(join(out, results, 'checks.json'), 'utf8')) as Check[]).map((check) => ({ ...check, scenario: results })),
  );
  return { exitCode, checks, output };
}

/** The scenarios of listing and calling tools, the same at both revisions. */
const toolScenarios = [
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
];

/** Scenarios of tools, questions and the stateless revision that must pass with no warning, by the revision they are run at. */
const mustPass: Readonly<Record<'2025-11-25' | '2026-07-28', readonly string[]>> = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'logging-set-level',
    ...toolScenarios,
    'tools-call-with-logging',
    'tools-call-sampling',
    'tools-call-elicitation',
    'elicitation-sep1034-defaults',
    'elicitation-sep1330-enums',
    'json-schema-2020-12',
    'server-sse-multiple-streams',
    'server-session-lifecycle',
    'dns-rebinding-protection',
  ],
  '2026-07-28': [
    'server-stateless',
    ...toolScenarios,
    'json-schema-2020-12',
    'http-header-validation',
    'http-custom-header-server-validation',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    ...[
      'basic-elicitation',
      'basic-sampling',
      'basic-list-roots',
      'request-state',
      'multiple-input-requests',
      'multi-round',
      'missing-input-response',
      'result-type',
      'unsupported-methods',
      'tampered-state',
      'capability-check',
      'ignore-extra-params',
      'validate-input',
    ].map((name) => `input-required-result-${name}`),
    // The tasks extension (io.modelcontextprotocol/tasks), through the SDK's tasks fixtures (examples/conformance-task-tools.ts).
    ...conformanceTaskScenarios,
  ],
};

describe('the MCP conformance suite, through the gateway and the conformance tool service', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    'passes the requirements of %s, every scenario that does not apply listed in the baseline with its reason',
    { timeout: 240_000 },
    async (revision) => {
      const { exitCode, checks, output } = await conformance('--requirements', revision);
      expect(output).toContain('Baseline check passed');
      expect(exitCode, output).toBe(0);
      // The scenarios of this work each ran, and passed with no warning (the baseline never hides one).
      for (const scenario of mustPass[revision]) {
        const own = checks.filter((check) => check.scenario.startsWith(`server-${scenario}-2`));
        expect(own.filter((check) => check.status === 'SUCCESS').length, `${scenario}\n${output}`).toBeGreaterThan(0);
        expect(
          own.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING'),
          scenario,
        ).toEqual([]);
      }
    },
  );

  it('lists every scenario of the baseline with a reason: a comment above it or beside it', () => {
    const lines = readFileSync(baseline, 'utf8').split('\n');
    const listed = lines.flatMap((line, index) => (/^\s*- /.test(line) ? [index] : []));
    expect(listed.length).toBeGreaterThan(0);
    for (const index of listed) {
      const reasoned =
        lines[index]?.includes('#') ||
        lines
          .slice(0, index)
          .reverse()
          .find((line) => !/^\s*- /.test(line))
          ?.trim()
          .startsWith('#');
      expect(reasoned, lines[index]).toBe(true);
    }
  });
});
