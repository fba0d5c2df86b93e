import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../repo-root.ts';

describe('the gates CI runs', () => {
  let layerLinter: ESLint | undefined;

  it('refuses an import cycle: the lint configuration finds one in the deliberate fixture', async () => {
    const eslint = new ESLint({ cwd: repoRoot, ignore: false });
    const results = await eslint.lintFiles(['scripts/test/cycle-fixture/*.ts']);
    const cycles = results.flatMap((result) => result.messages.filter((message) => message.ruleId === 'import-x/no-cycle'));
    expect(cycles.length).toBeGreaterThan(0);
  }, 60_000);

  it.each([
    ['the store importing the HTTP edge', 'webhook-api/src/store/records.ts', "import { WebhookApiError } from '../http/errors.ts';"],
    ['the queue importing the deliverer', 'webhook-api/src/queue/duration-text.ts', "import { settlementOf } from '../delivery/settlement.ts';"],
    ['the configuration rules importing ingest', 'webhook-api/src/configs/limits.ts', "import { toQueuedPoint } from '../ingest/telemetry-points.ts';"],
    [
      'the deliverer importing a composition root (the settings)',
      'webhook-api/src/delivery/settlement.ts',
      "import { loadWebhookApiSettings } from '../settings.ts';",
    ],
    ['ingest importing its sibling, the deliverer', 'webhook-api/src/ingest/telemetry-points.ts', "import { toOutgoing } from '../delivery/outgoing.ts';"],
  ])(
    'refuses an import against webhook-api’s layers: %s',
    async (_layer, filePath, violation) => {
      // One linter for the five: each new one builds the type-aware program again (seconds each).
      layerLinter ??= new ESLint({ cwd: repoRoot });
      const eslint = layerLinter;
      const source = readFileSync(join(repoRoot, filePath), 'utf8');
      const [clean] = await eslint.lintText(source, { filePath });
      const [broken] = await eslint.lintText(`${violation}\n${source}`, { filePath });
      const rule = 'import-x/no-restricted-paths';
      expect(clean?.messages.filter((m) => m.ruleId === rule)).toEqual([]);
      expect(broken?.messages.filter((m) => m.ruleId === rule).map((m) => m.message)).toEqual([
        expect.stringContaining('imports run one way: http → ingest/delivery → configs → queue → store') as unknown,
      ]);
    },
    60_000,
  );

  it('counts a file whose hooks failed as a failure in the closing summary line, though its tests passed', () => {
    const vitest = join(repoRoot, 'node_modules/vitest/vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'scripts/test/reporter-fixture/vitest.config.ts'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('1 passed, 1 failed');
  }, 60_000);

  it('keeps the docs self-contained: every relative link in the README and docs/ points at a file inside the repository', () => {
    const documents = [
      'README.md',
      ...readdirSync(join(repoRoot, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const problems: string[] = [];
    for (const document of documents) {
      const text = readFileSync(join(repoRoot, document), 'utf8');
      if (/\.\.\/shared\//.test(text)) problems.push(`${document} mentions ../shared/, a folder outside the repository`);
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const path = resolve(dirname(join(repoRoot, document)), decodeURI(target.replace(/#.*$/, '')));
        const inside = !relative(repoRoot, path).startsWith('..');
        if (!inside) problems.push(`${document} links outside the repository: ${target}`);
        else if (!statSync(path, { throwIfNoEntry: false })) problems.push(`${document} links to a missing file: ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/** A CI step as the README names it: `install <packages>` or the npm command (flags aside). */
function ciStepsOfScript(script: string): string[] {
  const steps: string[] = [];
  for (const line of script.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const install = /\bapt-get install\b(.*?)(?:>|$)/.exec(line);
    if (install)
      steps.push(
        `install ${(install[1] ?? '')
          .split(/\s+/)
          .filter((word) => word !== '' && !word.startsWith('-'))
          .join(' ')}`,
      );
    const npm = /(?:^|\s)(npm (?:ci|test|run [\w:-]+))/.exec(line);
    if (npm) steps.push(npm[1] ?? '');
  }
  return steps;
}

/** The numbered list under the README's "What CI runs", each item as ciStepsOfScript names a step. */
function ciStepsOfReadme(readme: string): string[] {
  const section = /^### What CI runs\n([\s\S]*?)(?=^#)/m.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/^\d+\. (.*)$/gm)].map(([, item = '']) => {
    const named = [...item.matchAll(/`([^`]+)`/g)].map(([, code = '']) => code);
    return item.startsWith('installs ') ? `install ${named.join(' ')}` : (named[0] ?? item);
  });
}

describe('the README', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const ciScript = readFileSync(join(repoRoot, '.ci/run'), 'utf8');

  it('lists every step .ci/run runs, in its order, under "What CI runs"', () => {
    const steps = ciStepsOfScript(ciScript);
    expect(steps).toContain('npm test');
    expect(ciStepsOfReadme(readme)).toEqual(steps);
  });

  it('reads a CI step added to .ci/run as missing from the list', () => {
    const added = ciScript.replace('npm run lint\n', 'npm run lint\nnpm run bench\n');
    expect(ciStepsOfScript(added)).toContain('npm run bench');
    expect(ciStepsOfReadme(readme)).not.toEqual(ciStepsOfScript(added));
  });

  it('states the test prerequisites once: the one `apt-get install` of the README and docs/, naming only what .ci/run installs', () => {
    const documents = [
      'README.md',
      ...readdirSync(join(repoRoot, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const installs = documents.flatMap((document) =>
      [...readFileSync(join(repoRoot, document), 'utf8').matchAll(/apt-get install ([\w. -]+)/g)].map(([, packages = '']) => ({
        document,
        packages: packages.trim().split(/\s+/),
      })),
    );
    expect(installs.map(({ document }) => document)).toEqual(['README.md']);
    const installed = ciStepsOfScript(ciScript).flatMap((step) => (step.startsWith('install ') ? step.slice('install '.length).split(' ') : []));
    expect(installed.length).toBeGreaterThan(0);
    expect(installs[0]?.packages.filter((name) => !installed.includes(name))).toEqual([]);
  });
});
