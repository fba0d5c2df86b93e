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
  if (!isRecording()) return run();
  return inSpan(operation, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'db.operation.name': operation } }, run);
}

function tracedQueryable(target: SqlQueryable, system: DbSystem): SqlQueryable {
  return {
    one: (sql, values) => traced(system, operationOf(sql), () => target.one(sql, values)),
    all: (sql, values) => traced(system, operationOf(sql), () => target.all(sql, values)),
    run: (sql, values) => traced(system, operationOf(sql), () => target.run(sql, values)),
    exec: (script) => traced(system, 'EXEC', () => target.exec(script)),
  };
}

export function tracedDriver(driver: SqlDriver, system: DbSystem): SqlDriver {
  return {
    ...driver,
    ...tracedQueryable(driver, system),
    dialect: driver.dialect,
    transaction: (work, options) =>
      traced(system, 'transaction', () =>
        driver.transaction((tx) => work({ ...tracedQueryable(tx, system), lock: (key) => tx.lock(key) } satisfies SqlTransaction), options),
      ),
    failureOf: (error) => driver.failureOf(error),
    close: () => driver.close(),
    ...(driver.listen && { listen: driver.listen.bind(driver) }),
  };
}
