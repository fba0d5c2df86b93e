// Vitest setup file of the unit projects that share their workers (vitest.config.ts): a file runs
// in the process the files before it ran in, with the modules they loaded. This fails a file that
// leaves that process changed, and undoes the change before the next file starts: Node's sockets
// or fetch patched (nock does so as it is imported, until nock.restore()), the environment
// changed, listeners left on the process's signals and error events, fake timers left on,
// OpenTelemetry's globals left registered. A file that mocks a module (vi.mock) fails too: in a
// shared process the module may already be loaded unmocked, or stay mocked for the next file.
// Such files run in the unit-isolated project, each in a process of its own.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, expect, vi } from 'vitest';

// What nock patches as it is imported (Node's sockets under http, https and undici; fetch).
const patchable = [
  { name: 'net.Socket.prototype.connect', owner: net.Socket.prototype, key: 'connect' },
  { name: 'globalThis.fetch', owner: globalThis, key: 'fetch' },
] as const;

// What each one was when the worker started, before any test file ran: kept on the global object,
// which outlives this module when Vitest evaluates it again for the next file.
const originalsKey = Symbol.for('platform.unit-file-guard.originals');
const store = globalThis as { [originalsKey]?: Map<string, unknown> };
const originals = (store[originalsKey] ??= new Map(patchable.map(({ name, owner, key }) => [name, Reflect.get(owner, key)])));

// The OpenTelemetry API's registrations (tracer provider, propagator, context manager) are keys of
// one global object per major version; startTelemetry's shutdown removes them, as this does.
const openTelemetryApi = () => (globalThis as Record<symbol, object | undefined>)[Symbol.for('opentelemetry.js.api.1')] ?? {};
const openTelemetryGlobals = () => Object.keys(openTelemetryApi()).filter((key) => key !== 'version');

// The process's own events a service listens to (stopOnSignals, its error handlers).
const processEvents = ['SIGINT', 'SIGTERM', 'disconnect', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection', 'warning'] as const;
const processListeners = () => new Map(processEvents.map((event) => [event, process.rawListeners(event)]));

const moduleMock = /\bvi\.(?:do)?mock\(/;

// Vitest evaluates this file again before each test file is imported: what the file finds. The
// environment is copied here as the thing to compare, not read as settings: no value of it is used.
const environment = { ...process.env };
const openTelemetryBefore = openTelemetryGlobals();
const listenersBefore = processListeners();

beforeAll(() => {
  const { testPath } = expect.getState();
  if (testPath !== undefined && moduleMock.test(readFileSync(testPath, 'utf8'))) {
    throw new Error('this file mocks a module (vi.mock): list it in vitest.config.ts among the unit files that run isolated');
  }
});

afterAll(() => {
  const left: string[] = [];
  for (const { name, owner, key } of patchable) {
    if (Reflect.get(owner, key) === originals.get(name)) continue;
    left.push(`${name} replaced (nock? call nock.restore() in afterAll, or run the file isolated)`);
    Reflect.set(owner, key, originals.get(name));
  }
  const changed = [...new Set([...Object.keys(environment), ...Object.keys(process.env)])].filter((name) => process.env[name] !== environment[name]);
  if (changed.length > 0) {
    left.push(`process.env changed: ${changed.join(', ')}`);
    for (const name of changed) {
      if (environment[name] === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = environment[name];
    }
  }
  for (const [event, listeners] of processListeners()) {
    const added = listeners.filter((listener) => !listenersBefore.get(event)?.includes(listener));
    if (added.length === 0) continue;
    left.push(`${added.length} process.on('${event}') listener(s) left`);
    for (const listener of added) process.removeListener(event, listener as (...args: unknown[]) => void);
  }
  if (vi.isFakeTimers()) {
    left.push('fake timers still on (vi.useRealTimers())');
    vi.useRealTimers();
  }
  const registered = openTelemetryGlobals().filter((key) => !openTelemetryBefore.includes(key));
  if (registered.length > 0) {
    left.push(`OpenTelemetry globals still registered: ${registered.join(', ')} (shut the telemetry down)`);
    for (const key of registered) Reflect.deleteProperty(openTelemetryApi(), key);
  }
  if (left.length > 0) {
    throw new Error(`this file left the process its worker shares with the next files changed; undone now, but fix the file: ${left.join('; ')}`);
  }
});
