// The one rule of who may read a service's /metrics: `<PREFIX>METRICS_TOKEN` asked as a bearer
// token, or `<PREFIX>METRICS_PUBLIC=true` to open it on purpose, never both; neither set, /metrics is
// not served, or, where a service must serve it (the webhook API and its deliverers; a tool service
// with its own `METRICS_PORT`), the settings are refused naming both. Services that parse their
// settings in one go take the shape and the problems into their own parse.
import { z } from 'zod';
import { parseSettings, setting, type Environment, type SettingsPart } from '../settings/vocabulary.ts';
import type { MetricsAccess } from './metrics-endpoint.ts';

export interface MetricsSettings {
  /** Undefined when /metrics is not served. */
  readonly access: MetricsAccess | undefined;
}

export interface ToolMetricsSettings extends MetricsSettings {
  /** The port of the tool service's /metrics listener; undefined when it has none. */
  readonly port: number | undefined;
  readonly host: string;
}

const tokenSetting = () => z.string().min(16, 'must be at least 16 characters').optional();
const publicSetting = () => setting.flag.default(false);

/** The zod shape of the rule's two variables, for a service's own settings parse. */
export type MetricsAccessShape<P extends string> = Record<`${P}METRICS_TOKEN`, ReturnType<typeof tokenSetting>> &
  Record<`${P}METRICS_PUBLIC`, ReturnType<typeof publicSetting>>;

/** The two variables of the rule: `<prefix>METRICS_TOKEN` (16 characters or more) and `<prefix>METRICS_PUBLIC`. */
export function metricsAccessShape<P extends string>(prefix: P): MetricsAccessShape<P> {
  // Computed keys widen to string; the two names are exactly the type's.
  return { [`${prefix}METRICS_TOKEN`]: tokenSetting(), [`${prefix}METRICS_PUBLIC`]: publicSetting() } as MetricsAccessShape<P>;
}

/** Who may read /metrics by the parsed variables of metricsAccessShape: undefined when it is not served. */
export function metricsAccessOf(prefix: string, values: Record<string, unknown>): MetricsAccess | undefined {
  const token = values[`${prefix}METRICS_TOKEN`] as string | undefined;
  return token !== undefined ? { token } : values[`${prefix}METRICS_PUBLIC`] === true ? 'public' : undefined;
}

/**
 * The rule's problems, for a settings parse's cross-check: both chosen, or, where /metrics must be
 * served (`required`: the webhook API, whose operators scrape every tenant's deliveries; a tool
 * service with METRICS_PORT), neither. `required.when` says when it is required, if not always.
 */
export function* metricsAccessProblems(
  prefix: string,
  values: Record<string, unknown>,
  required?: { readonly when?: string },
): Generator<readonly [string, string]> {
  const token = `${prefix}METRICS_TOKEN`;
  const open = `${prefix}METRICS_PUBLIC`;
  if (values[token] !== undefined && values[open] === true) yield [open, `must not be true when ${token} is set: choose one`];
  if (required && metricsAccessOf(prefix, values) === undefined) {
    const when = required.when === undefined ? '' : ` ${required.when}`;
    yield [
      token,
      `is required${when}: set it (16 characters or more) to ask scrapers for it as a bearer token, or set ${open}=true to serve /metrics to anyone who reaches the port`,
    ];
  }
}

/** The variables of a service whose /metrics is on its own HTTP port: `MCP_` for the gateway, `PLATFORM_` for the dev platform. */
export const metricsAccessVariables = (prefix: string): readonly string[] => Object.freeze(Object.keys(metricsAccessShape(prefix)));

/** The metrics settings of a service whose /metrics is on its own HTTP port, as a part of the service's one settings parse. */
export function metricsSettingsPart<P extends string>(prefix: P): SettingsPart<MetricsAccessShape<P>, MetricsSettings> {
  return {
    shape: metricsAccessShape(prefix),
    check: (values) => metricsAccessProblems(prefix, values),
    build: (values) => Object.freeze({ access: metricsAccessOf(prefix, values) }),
  };
}

export function loadMetricsSettings(env: Environment, prefix: string): MetricsSettings {
  return parseSettings(env, { metrics: metricsSettingsPart(prefix) }).metrics;
}

const toolShape = {
  ...metricsAccessShape(''),
  METRICS_PORT: setting.httpPort.optional(),
  METRICS_HOST: setting.host.default('127.0.0.1'),
};

/** The tool SDK's metrics variables: .env.example lists each. */
export const toolMetricsVariables: readonly string[] = Object.freeze(Object.keys(toolShape));

/** A tool service's metrics settings, as a part of the service's one settings parse. */
export const toolMetricsSettingsPart: SettingsPart<typeof toolShape, ToolMetricsSettings> = {
  shape: toolShape,
  check: (values) => metricsAccessProblems('', values, values.METRICS_PORT === undefined ? undefined : { when: 'when METRICS_PORT is set' }),
  build: (values) => Object.freeze({ access: metricsAccessOf('', values), port: values.METRICS_PORT, host: values.METRICS_HOST }),
};

export function loadToolMetricsSettings(env: Environment): ToolMetricsSettings {
  return parseSettings(env, { metrics: toolMetricsSettingsPart }).metrics;
}
