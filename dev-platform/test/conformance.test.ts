// The official MCP conformance suite's authorization-server scenarios against the dev platform
// (@modelcontextprotocol/conformance, pinned): the metadata endpoint with no warning (client ID
// metadata documents announced), and the authorization code grant signed in through the real
// login form and consent page by the dev platform's scripted sign-in, with a client identified by
// the metadata document this test serves. The suite runs the grant only after the metadata
// scenario, in one run, since the grant reads the metadata that scenario found.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { clientDocument, startClientDocumentServer } from './client-document-server.ts';
import { signIn, type SignInOutcome } from './headless-sign-in.ts';
import { startPlatform, type RunningPlatform } from './harness.ts';

const require = createRequire(import.meta.url);
const suitePackage = require.resolve('@modelcontextprotocol/conformance/package.json');
const suite = join(dirname(suitePackage), 'dist/index.js');

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

interface SuiteRun {
  readonly exitCode: number | null;
  readonly output: string;
  /** Every scenario's checks, by the name of the folder the suite wrote them in. */
  readonly checks: Readonly<Record<string, readonly Check[]>>;
  /** How the scripted sign-in went, when the suite asked for one. */
  readonly signIn?: SignInOutcome;
}

/** Runs `conformance authorization <args>`, answering its request to sign in (the URL it prints) as a person would. */
async function runSuite(args: readonly string[]): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-as-'));
  // Stopped before the test's own timeout: a sign-in that never reaches the suite's callback fails here, with its output.
  // Killed at once if the test fails first (its sign-in threw, say): it holds the callback port.
  const child = killedIfTestFails(
    spawn(process.execPath, [suite, 'authorization', ...args, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 45_000 }),
  );
  let output = '';
  let signedIn: Promise<SignInOutcome> | undefined;
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    const asked = /^(http\S+\/auth\?\S+)$/m.exec(output)?.[1];
    // The person at the browser: signs in as oscar, allows the client, and is sent to the suite's callback.
    if (asked !== undefined && signedIn === undefined) signedIn = signIn(asked, { username: 'oscar', password: 'oscar-dev-password' }, { deliver: true });
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const checks: Record<string, Check[]> = {};
  for (const folder of readdirSync(out))
    checks[folder.replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')] = JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')) as Check[];
  return { exitCode, output, checks, ...(signedIn && { signIn: await signedIn }) };
}

const notPassed = (checks: readonly Check[] = []) => checks.filter((check) => check.status !== 'SUCCESS');

describe('the official conformance suite, authorization-server scenarios', () => {
  const documents = startedForTests(startClientDocumentServer);
  const platform = startedForTests(async (): Promise<RunningPlatform> => startPlatform({ clientDocumentCa: documents().ca }));

  it('is the pinned release', () => {
    expect((JSON.parse(readFileSync(suitePackage, 'utf8')) as { version: string }).version).toBe('0.2.0-alpha.12');
  });

  it('passes authorization-server-metadata-endpoint with no warning: client ID metadata documents are announced', { timeout: 60_000 }, async () => {
    const run = await runSuite(['--url', platform().issuer, '--scenario', 'authorization-server-metadata-endpoint']);
    const checks = run.checks['authorization-server-authorization-server-metadata-endpoint'];
    expect(checks?.map((check) => check.id)).toEqual(['authorization-server-metadata', 'authorization-server-metadata-cimd']);
    expect(notPassed(checks), run.output).toEqual([]);
    expect(run.output).toContain('Passed: 2/2, 0 failed, 0 warnings');
    expect(run.exitCode, run.output).toBe(0);
  });

  it(
    'passes authorization-code-grant, signed in through the login form and consent page, with a client identified by its document',
    { timeout: 60_000 },
    async () => {
      const port = await closedPort();
      const clientId = `${documents().httpsOrigin}/conformance-client.json`;
      // The suite's client is public (no secret) and waits for its code at 127.0.0.1:<port>/callback.
      documents().serve('/conformance-client.json', {
        body: clientDocument(clientId, [`http://127.0.0.1:${port}/callback`], { client_name: 'MCP conformance suite' }),
      });
      const run = await runSuite(['--url', platform().issuer, '--client-id', clientId, '--port', String(port)]);
      expect(run.signIn, run.output).toMatchObject({ kind: 'redirected', consentShown: true, callbackStatus: 200 });
      expect(run.checks['authorization-server-authorization-code-grant']?.map((check) => check.id)).toEqual(['authorization-code-grant']);
      expect(notPassed(run.checks['authorization-server-authorization-code-grant']), run.output).toEqual([]);
      expect(notPassed(run.checks['authorization-server-authorization-server-metadata-endpoint']), run.output).toEqual([]);
      expect(run.output).toContain('✓ authorization-code-grant: 1 passed, 0 failed');
      expect(run.output).toContain('Total: 3 passed, 0 failed');
      expect(run.exitCode, run.output).toBe(0);
      expect(documents().fetches('/conformance-client.json')).toBe(1);
    },
  );
});
