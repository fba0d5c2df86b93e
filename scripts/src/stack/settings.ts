// The variables npm start and start:pg read for themselves, beside the services' (which the
// services' loaders read), in the services' settings vocabulary: a bad value is named, not guessed at.
import { setting, type Environment } from '@platform/tool-sdk';
import { parseEnvironment } from '@platform/tool-sdk/internal';
import { placementVariables } from './processes.ts';

export type OutputFormat = 'json' | 'pretty';

const outputShape = {
  LOG_FORMAT: setting.text.refine((value) => value === 'json' || value === 'pretty', 'must be json or pretty').default('pretty'),
};

/** The demo's --trace receiver (OTLP/HTTP JSON on 127.0.0.1). */
const demoTraceShape = {
  DEMO_TRACE_PORT: setting.httpPort.default(4919),
};

const localPostgresShape = {
  STACK_POSTGRES_PORT: setting.port.refine((port) => port !== 0, 'must not be 0: the cluster keeps its port between runs').default(5433),
};

/** Every variable the scripts declare, the stack's placement among them: .env.example lists each. */
export const scriptVariables: readonly string[] = Object.freeze([
  ...placementVariables,
  ...Object.keys(outputShape),
  ...Object.keys(demoTraceShape),
  ...Object.keys(localPostgresShape),
]);

/** How the services' output is shown: their raw JSON lines, or formatted for a person. Throws SETTINGS_INVALID. */
export function loadOutputFormat(env: Environment): OutputFormat {
  return parseEnvironment(outputShape, env).LOG_FORMAT === 'json' ? 'json' : 'pretty';
}

/** The port of start:pg's own PostgreSQL cluster, used when DATABASE_URL is unset. Throws SETTINGS_INVALID. */
export function loadLocalPostgresPort(env: Environment): number {
  return parseEnvironment(localPostgresShape, env).STACK_POSTGRES_PORT;
}

/** The port of the demo's --trace receiver. Throws SETTINGS_INVALID. */
export function loadDemoTracePort(env: Environment): number {
  return parseEnvironment(demoTraceShape, env).DEMO_TRACE_PORT;
}
