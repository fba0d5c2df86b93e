// The SDK's public surface, name by name: each public entry exports exactly the names listed here,
// so a name exported by accident (an internal helper re-exported from an index, an `export *`)
// fails this test, as does a public name dropped. The root and ./tools lists are what a tool
// service's author needs (docs/tool-sdk.md, "The public surface"); what the repository's own services
// share goes through the unpublished `./internal` entry. Changing a list is changing the public API:
// update the API report (npm run api:update) and shared/CHANGELOG.md with it.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const packageFolder = join(import.meta.dirname, '..');
const repoRoot = join(packageFolder, '..');

/** Every name each public entry exports, values and types (a list read as a list: several names a line). */
// prettier-ignore
const publicNames = {
  '.': [
    'ArgsOf', 'Bytes', 'CallClient', 'Caller', 'CallerCompany', 'ClientLogLevel', 'Clock', 'ContentAnnotations', 'createLogger', 'createToolApp',
    'defineTool', 'ElicitationAnswer', 'Environment', 'exitOnStartupFailure', 'FormContent', 'FormQuestion', 'FormSchema', 'FormSpec', 'FormValue',
    'GatewayRegistration', 'GatewayRegistrationOptions', 'GrpcTlsSettings', 'HttpClient', 'HttpMethod', 'isPlatformError', 'jsonSchema', 'JsonSchemaInput',
    'loadPlatformMcpSettings', 'loadToolServiceSettingsWith', 'Logger', 'LoggerOptions', 'LogLevel', 'PlatformApiClient', 'PlatformAppIdentity',
    'platformAppIdentity', 'PlatformAppIdentityOptions', 'PlatformAppSettings', 'PlatformError', 'PlatformMcpCallContext', 'PlatformMcpSettings',
    'PlatformPage', 'PlatformRequestOptions', 'QuestionOptions', 'Questions', 'RegistrationState', 'ResultOf', 'Root', 'SamplingAnswer', 'SamplingMessage',
    'SamplingRequest', 'SchemaCheck', 'SdkErrorCode', 'sdkErrorCodes', 'ServeOptions', 'ServingToolApp', 'setting', 'stopOnSignals', 'StopOptions', 'Timers',
    'TokenProvider', 'ToolAnnotations', 'ToolApp', 'ToolAppOptions', 'ToolContent', 'ToolDefinition', 'ToolDefinitionError', 'ToolError', 'ToolExecution',
    'ToolResult', 'toolResult', 'ToolResultSpec', 'ToolResultValue', 'ToolSchema', 'ToolServiceSettingsOptions', 'ToolSpec', 'ToolTaskStart',
    'ToolTaskSupport', 'UrlQuestion',
  ],
  './tools': [
    'ArgsOf', 'Bytes', 'CallClient', 'ClientLogLevel', 'ContentAnnotations', 'createToolApp', 'defineTool', 'ElicitationAnswer', 'FormContent',
    'FormQuestion', 'FormSchema', 'FormSpec', 'FormValue', 'GatewayRegistration', 'GatewayRegistrationOptions', 'HttpMethod', 'jsonSchema',
    'JsonSchemaInput', 'PlatformApiClient', 'PlatformMcpCallContext', 'PlatformPage', 'PlatformRequestOptions', 'QuestionOptions', 'Questions',
    'RegistrationState', 'ResultOf', 'Root', 'SamplingAnswer', 'SamplingMessage', 'SamplingRequest', 'SchemaCheck', 'ServeOptions', 'ServingToolApp',
    'ToolAnnotations', 'ToolApp', 'ToolAppOptions', 'ToolContent', 'ToolDefinition', 'ToolDefinitionError', 'ToolError', 'ToolExecution', 'ToolResult',
    'toolResult', 'ToolResultSpec', 'ToolResultValue', 'ToolSchema', 'ToolSpec', 'ToolTaskStart', 'ToolTaskSupport', 'UrlQuestion',
  ],
  './testing': [
    'CallAnswer', 'CapturedLogs', 'captureLogs', 'closedPort', 'discoveryDocument', 'FixtureRegistration', 'healthClient', 'HealthClient', 'healthStatus',
    'listen', 'Listening', 'listenOnFreePort', 'ManualClock', 'manualClock', 'platformFailure', 'PlatformFixture', 'reflectedServices', 'RegistryCall',
    'RegistryFixture', 'RegistryFixtureOptions', 'rejectionOf', 'settingsFailure', 'StagedCaller', 'StagedFailure', 'startedForTests',
    'StartedForTestsOptions', 'StartedPart', 'startPlatformFixture', 'startRegistryFixture', 'tokenExpiringIn', 'ToolClient', 'toolClient',
    'ToolClientCallOptions', 'until',
  ],
  './observability': [
    'Attributes', 'Context', 'createMetricsHandler', 'createToolServiceMetrics', 'currentTraceparent', 'extractTraceContext', 'httpClientAttributes',
    'injectTraceContext', 'injectTraceHeaders', 'inSpan', 'isMetricsRequest', 'isRecording', 'Link', 'linkTo', 'loadMetricsSettings',
    'loadTelemetrySettings', 'loadToolMetricsSettings', 'MetricsAccess', 'metricsAccessOf', 'metricsAccessProblems', 'metricsAccessShape',
    'MetricsAccessShape', 'metricsAccessVariables', 'MetricsHandler', 'MetricsListener', 'MetricsOutage', 'MetricsSettings', 'OtlpProtocol', 'pathOf',
    'recordFailure', 'serveMetrics', 'Span', 'SpanContext', 'SpanKind', 'SpanOptions', 'SpanStatusCode', 'startTelemetry', 'StartTelemetryOptions',
    'Telemetry', 'TelemetrySettings', 'telemetryVariables', 'toolCallBuckets', 'ToolCallObserver', 'ToolMetricsSettings', 'toolMetricsVariables',
    'ToolServiceMetrics', 'trace', 'traceContext', 'tracer', 'TraceSampler', 'withMetrics',
  ],
} as const satisfies Record<string, readonly string[]>;

const entries = [
  { entry: '.', source: 'src/index.ts', load: () => import('./index.ts') },
  { entry: './tools', source: 'src/tools/index.ts', load: () => import('./tools/index.ts') },
  { entry: './testing', source: 'src/testing/index.ts', load: () => import('./testing/index.ts') },
  { entry: './observability', source: 'src/observability/index.ts', load: () => import('./observability/index.ts') },
] as const;
/** The entries API Extractor reports on (scripts/src/gates/api-report.ts). */
const reports = [
  { entry: '.', report: 'tool-sdk.api.md' },
  { entry: './tools', report: 'tool-sdk-tools.api.md' },
  { entry: './testing', report: 'tool-sdk-testing.api.md' },
] as const;

/** The names an index module re-exports (`export { a, type B } from ...`); an `export *` would hide them, so it is refused. */
function namesExportedBy(source: string): string[] {
  const text = readFileSync(join(packageFolder, source), 'utf8');
  expect(text, `${source} must list its exports by name`).not.toMatch(/export\s*\*/);
  const names = [...text.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '').split(',').map((name) => name.trim().replace(/^type\s+/, '')),
  );
  return names.filter((name) => name !== '');
}

/** The names an API Extractor report declares. */
function namesInReport(report: string): string[] {
  const text = readFileSync(join(packageFolder, 'etc', report), 'utf8');
  const declared = text.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|interface|type|const|enum|namespace|let) ([A-Za-z0-9_$]+)/gm);
  // A dependency's type re-exported as it is (pino's Logger) is listed as `export { Logger }`.
  const reExported = text.matchAll(/^export \{ ([A-Za-z0-9_$, ]+) \}/gm);
  return [...[...declared].map((match) => match[1] ?? ''), ...[...reExported].flatMap((match) => (match[1] ?? '').split(', '))];
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe.each(entries)("the SDK's public entry $entry", ({ entry, source, load }) => {
  const allowed = sorted(publicNames[entry]);

  it('exports exactly its listed names, values and types', () => {
    expect(sorted(namesExportedBy(source))).toEqual(allowed);
  });

  it('has no value at run time beyond its listed names', async () => {
    const values = Object.keys(await load());
    expect(values.filter((name) => !allowed.includes(name))).toEqual([]);
  });
});

describe.each(reports)('the API report of $entry', ({ entry, report }) => {
  it('declares exactly the listed names (npm run api:check holds the report to the build)', () => {
    expect(sorted(namesInReport(report))).toEqual(sorted(publicNames[entry]));
  });
});

describe('the private entry ./internal', () => {
  const manifest = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; files: string[] };

  it("resolves under the repository's source condition only, so the packed package has no such entry", () => {
    expect(manifest.exports['./internal']).toEqual({ '@platform/source': './src/internal.ts' });
    expect(manifest.files.some((pattern) => pattern.startsWith('src'))).toBe(false);
  });

  it('shares no name with the public entries (a name is public or internal, never both)', () => {
    const everyPublic = new Set<string>(Object.values(publicNames).flat());
    expect(namesExportedBy('src/internal.ts').filter((name) => everyPublic.has(name))).toEqual([]);
  });
});

describe("the examples, which a tool service's author copies", () => {
  /** Every TypeScript file under examples/, its dependencies aside. */
  function examples(folder: string): string[] {
    return readdirSync(folder, { withFileTypes: true }).flatMap((item) => {
      const path = join(folder, item.name);
      if (item.isDirectory()) return item.name === 'node_modules' || item.name === 'dist' ? [] : examples(path);
      return item.name.endsWith('.ts') ? [path] : [];
    });
  }

  it('import only public names of the SDK', () => {
    const misused: string[] = [];
    for (const file of examples(join(repoRoot, 'examples'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@platform\/tool-sdk(\/[a-z]+)?'/g)) {
        const entry = match[2] === undefined ? '.' : `.${match[2]}`;
        const allowed: readonly string[] = entry in publicNames ? publicNames[entry as keyof typeof publicNames] : [];
        for (const name of (match[1] ?? '').split(',').map(
          (item) =>
            item
              .trim()
              .replace(/^type\s+/, '')
              .split(' as ')[0] ?? '',
        )) {
          if (name !== '' && !allowed.includes(name)) misused.push(`${relative(repoRoot, file)}: ${name} from @platform/tool-sdk${match[2] ?? ''}`);
        }
      }
    }
    expect(misused).toEqual([]);
  });
});
