// Database spans: a SqlDriver whose statements, run inside a traced request, are client spans
// named by their operation (`SELECT`, `INSERT`, a transaction as `transaction`), with
// db.system.name and db.operation.name. Never the statement's values; outside a recorded trace
// (the deliverer's polling) a statement costs one check and writes nothing.
import { inSpan, isRecording, SpanKind } from '@platform/tool-sdk/observability';
import type { SqlDriver, SqlQueryable, SqlStatement, SqlTransaction } from './sql-driver.ts';

type DbSystem = 'sqlite' | 'postgresql';

const operationOf = (sql: SqlStatement) => {
  const text = typeof sql === 'string' ? sql : sql.text;
  return /^\s*(?:WITH\b[\s\S]*?\)\s*)?([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
};

function traced<T>(system: DbSystem, operation: string, run: () => Promise<T>): Promise<T> {
  return inSpan(operation, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'db.operation.name': operation } }, run);
}

// Outside a recorded trace a statement goes straight to the driver: no closure, no reading of its text.
function tracedQueryable(target: SqlQueryable, system: DbSystem): SqlQueryable {
  return {
    one: (sql, values) => (isRecording() ? traced(system, operationOf(sql), () => target.one(sql, values)) : target.one(sql, values)),
    all: (sql, values) => (isRecording() ? traced(system, operationOf(sql), () => target.all(sql, values)) : target.all(sql, values)),
    run: (sql, values) => (isRecording() ? traced(system, operationOf(sql), () => target.run(sql, values)) : target.run(sql, values)),
    exec: (script) => (isRecording() ? traced(system, 'EXEC', () => target.exec(script)) : target.exec(script)),
  };
}

export function tracedDriver(driver: SqlDriver, system: DbSystem): SqlDriver {
  return {
    ...driver,
    ...tracedQueryable(driver, system),
    dialect: driver.dialect,
    transaction: (work, options) => {
      const run = () => driver.transaction((tx) => work({ ...tracedQueryable(tx, system), lock: (key) => tx.lock(key) } satisfies SqlTransaction), options);
      return isRecording() ? traced(system, 'transaction', run) : run();
    },
    failureOf: (error) => driver.failureOf(error),
    close: () => driver.close(),
    ...(driver.listen && { listen: driver.listen.bind(driver) }),
  };
}
