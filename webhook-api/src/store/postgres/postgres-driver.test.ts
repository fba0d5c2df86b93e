import { describe, expect, it } from 'vitest';
import { classifyPostgresError } from './postgres-driver.ts';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('classifyPostgresError', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a connect timeout', withCode('ETIMEDOUT')],
    ['a broken pipe', withCode('EPIPE')],
    ['an unreachable host', withCode('EHOSTUNREACH')],
    ['a refused connection on every address', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
    ['a connection exception (class 08)', withCode('08006')],
    ['an administrator shutdown', withCode('57P01')],
    ['a crash shutdown', withCode('57P02')],
    ['a server that cannot accept connections yet', withCode('57P03')],
    ['a statement timeout', withCode('57014')],
    ['too many connections (class 53)', withCode('53300')],
    ['a full disk (class 53)', withCode('53100')],
    ['a connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['a connection timeout', new Error('Connection terminated due to connection timeout')],
    ['a query read timeout', new Error('Query read timeout')],
    ['a client that is not queryable', new Error('Client has encountered a connection error and is not queryable')],
  ])('classifies %s as unavailable', (_case, error) => {
    expect(classifyPostgresError(error)).toBe('unavailable');
  });

  it('classifies unique and foreign-key violations and conflicts (deadlock, serialization), and leaves anything else alone', () => {
    expect(classifyPostgresError(withCode('23505'))).toBe('unique');
    expect(classifyPostgresError(withCode('23503'))).toBe('foreign-key');
    expect(classifyPostgresError(withCode('40P01'))).toBe('conflict');
    expect(classifyPostgresError(withCode('40001'))).toBe('conflict');
    expect(classifyPostgresError(withCode('42P01'))).toBeUndefined();
    expect(classifyPostgresError(withCode('22021'))).toBeUndefined();
    expect(classifyPostgresError(new Error('something else'))).toBeUndefined();
    expect(classifyPostgresError(undefined)).toBeUndefined();
  });
});
