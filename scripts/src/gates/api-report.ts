// The SDK's public surface held still: API Extractor compares the built declarations of each entry
// point (the root, ./tools, ./testing) with the report committed under shared/etc/, and fails on a
// difference, so an export is added, removed or changed only on purpose.
//   node scripts/src/gates/api-report.ts [--update] [--package <folder>]
// --update writes the reports anew (npm run api:update); --package checks another built copy of the
// package (the test that an unintended export fails the check). Run after the build (npm run build).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { repoRoot } from '../repo-root.ts';

/** Each export of the package's manifest and the name of its report in etc/. */
export const apiEntryPoints = [
  { entry: 'dist/index.d.ts', report: 'tool-sdk.api.md' },
  { entry: 'dist/tools/index.d.ts', report: 'tool-sdk-tools.api.md' },
  { entry: 'dist/testing/index.d.ts', report: 'tool-sdk-testing.api.md' },
] as const;

export interface ApiReportOutcome {
  readonly report: string;
  readonly changed: boolean;
}

/** A report's lines, or none when it is missing. */
function readLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
}

/** Checks (or with `update`, rewrites) every entry point's report of the package in `packageFolder`. */
export function checkApiReports(packageFolder: string, update: boolean): ApiReportOutcome[] {
  const configPath = join(packageFolder, 'api-extractor.json');
  return apiEntryPoints.map(({ entry, report }) => {
    const configObject = ExtractorConfig.loadFile(configPath);
    configObject.mainEntryPointFilePath = `<projectFolder>/${entry}`;
    configObject.apiReport = { ...configObject.apiReport, enabled: true, reportFileName: report };
    const config = ExtractorConfig.prepare({ configObject, configObjectFullPath: configPath, packageJsonFullPath: join(packageFolder, 'package.json') });
    const problems: string[] = [];
    const result = Extractor.invoke(config, {
      localBuild: update,
      messageCallback(message) {
        // What the report comparison says is said below, with the difference; progress lines are noise.
        message.handled = true;
        if (message.messageId.startsWith('console-api-report') || message.logLevel === ExtractorLogLevel.Verbose || message.logLevel === ExtractorLogLevel.Info)
          return;
        if (message.logLevel !== ExtractorLogLevel.None) problems.push(message.formatMessageWithLocation(packageFolder));
      },
    });
    if (problems.length > 0) throw new Error(`API Extractor could not read ${entry}:\n${problems.join('\n')}`);
    if (result.apiReportChanged && !update) {
      const committed = new Set(readLines(join(config.reportFolder, report)));
      const built = new Set(readLines(join(config.reportTempFolder, report)));
      for (const line of committed) if (!built.has(line)) console.error(`- ${line}`);
      for (const line of built) if (!committed.has(line)) console.error(`+ ${line}`);
    }
    return { report, changed: result.apiReportChanged };
  });
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const { values } = parseArgs({ options: { update: { type: 'boolean', default: false }, package: { type: 'string' } } });
  const packageFolder = resolve(values.package ?? join(repoRoot, 'shared'));
  const changed = checkApiReports(packageFolder, values.update).filter((outcome) => outcome.changed);
  if (values.update) {
    console.log(changed.length === 0 ? 'api:update: the API reports are current' : `api:update: wrote ${changed.map((c) => `etc/${c.report}`).join(', ')}`);
  } else if (changed.length > 0) {
    console.error(
      `api:check: the SDK's public API changed (${changed.map((c) => `etc/${c.report}`).join(', ')}; the difference is above). ` +
        'If it is meant, run npm run api:update, commit the reports and note it in shared/CHANGELOG.md.',
    );
    process.exit(1);
  } else {
    console.log('api:check: the public API matches the committed reports');
  }
}
