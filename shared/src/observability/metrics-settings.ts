// Who may read a service's /metrics, in the webhook API's words: `<PREFIX>METRICS_TOKEN` asked as a
// bearer token, or `<PREFIX>METRICS_PUBLIC=true` to open it on purpose; neither set, /metrics is not
// served. A tool service serves it on a port of its own, `METRICS_PORT` (off unless set).
import { z } from 'zod';
import { parseEnvironment, setting, type Environment } from '../settings-vocabulary.ts';
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

const accessShape = (prefix: string) => ({
  [`${prefix}METRICS_TOKEN`]: z.string().min(16, 'must be at least 16 characters').optional(),
  [`${prefix}METRICS_PUBLIC`]: setting.flag.default(false),
});

function accessOf(prefix: string, values: Record<string, unknown>): MetricsAccess | undefined {
  const token = values[`${prefix}METRICS_TOKEN`] as string | undefined;
  return token !== undefined ? { token } : values[`${prefix}METRICS_PUBLIC`] === true ? 'public' : undefined;
}

function* bothChosen(prefix: string, values: Record<string, unknown>): Generator<readonly [string, string]> {
  if (values[`${prefix}METRICS_TOKEN`] !== undefined && values[`${prefix}METRICS_PUBLIC`] === true)
    yield [`${prefix}METRICS_PUBLIC`, `must not be true when ${prefix}METRICS_TOKEN is set: choose one`];
}

/** The variables of a service whose /metrics is on its own HTTP port: `MCP_` for the gateway, `PLATFORM_` for the dev platform. */
export const metricsAccessVariables = (prefix: string): readonly string[] => Object.freeze(Object.keys(accessShape(prefix)));

export function loadMetricsSettings(env: Environment, prefix: string): MetricsSettings {
  const values = parseEnvironment(accessShape(prefix), env, (parsed) => bothChosen(prefix, parsed));
  return Object.freeze({ access: accessOf(prefix, values) });
}

const toolShape = {
  ...accessShape(''),
  METRICS_PORT: setting.httpPort.optional(),
  METRICS_HOST: setting.host.default('127.0.0.1'),
};

/** The tool SDK's metrics variables: .env.example lists each. */
export const toolMetricsVariables: readonly string[] = Object.freeze(Object.keys(toolShape));

export function loadToolMetricsSettings(env: Environment): ToolMetricsSettings {
  const values = parseEnvironment(toolShape, env, function* (parsed) {
    yield* bothChosen('', parsed);
    if (parsed.METRICS_PORT !== undefined && accessOf('', parsed) === undefined)
      yield ['METRICS_TOKEN', 'is required when METRICS_PORT is set: set it (16 characters or more), or set METRICS_PUBLIC=true to serve /metrics to anyone'];
  });
  return Object.freeze({ access: accessOf('', values), port: values.METRICS_PORT, host: values.METRICS_HOST });
}
