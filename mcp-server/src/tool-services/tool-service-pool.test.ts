// The pool against real gRPC tool services on loopback: what reaches the service (the delegated
// token and nothing else), how every failure comes back as a status, and when channels close.
import * as grpc from '@grpc/grpc-js';
import { closedPort } from '@platform/tool-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadToolsProto, type CallToolEvent, type CallToolRequest__Output, type ToolServiceHandlers } from '@platform/proto';
import type { ToolCallEvent } from './tool-service-calls.ts';
import { createToolServicePool, ToolServiceError, type ToolServicePool } from './tool-service-pool.ts';
import { bindOnLoopback } from '@platform/devtools/grpc-loopback';

interface Received {
  readonly request: CallToolRequest__Output;
  readonly metadata: Record<string, unknown>;
}

/** A ToolService that records what it receives and answers by the tool's name. */
async function startFakeToolService() {
  const received: Received[] = [];
  const cancelled: string[] = [];
  // A service of the first revision: CallTool only (grpc-js answers CallToolStream UNIMPLEMENTED).
  const handlers: Pick<ToolServiceHandlers, 'ListTools' | 'CallTool'> = {
    ListTools: (_call, callback) => {
      callback(null, {
        tools: [{ name: 'echo', title: 'Echo', description: 'Echoes.', inputSchemaJson: '{"type":"object"}' }],
      });
    },
    CallTool: (call, callback) => {
      received.push({ request: call.request, metadata: call.metadata.getMap() });
      const { name, argumentsJson } = call.request;
      if (name === 'echo') callback(null, { resultJson: argumentsJson, isError: false, text: '' });
      else if (name === 'fails') callback(null, { resultJson: '{"code":"NOT_FOUND","message":"no such webhook"}', isError: true, text: 'no such webhook' });
      else if (name === 'denied') callback({ code: grpc.status.PERMISSION_DENIED, details: 'needs device-overview:manage' });
      else if (name === 'hangs')
        call.once('cancelled', () => {
          cancelled.push(call.request.requestId);
        });
      else callback({ code: grpc.status.NOT_FOUND, details: `no tool ${name}` });
    },
  };
  const server = new grpc.Server();
  server.addService(loadToolsProto().ToolService.service, handlers);
  const address = await bindOnLoopback(server, grpc.ServerCredentials.createInsecure());
  return {
    address,
    received,
    cancelled,
    close: () => {
      server.forceShutdown();
    },
  };
}

let service: Awaited<ReturnType<typeof startFakeToolService>>;
let pool: ToolServicePool;
const generous = { deadlineMs: 10_000 };

beforeAll(async () => {
  service = await startFakeToolService();
});
afterAll(() => {
  service.close();
});
afterEach(() => {
  pool.close();
});

const request = (name: string, args: unknown = {}) => ({ name, argumentsJson: JSON.stringify(args), requestId: `req-${name}` });

describe('callTool', () => {
  it('sends the delegated token as the only authorization, with the request as given', async () => {
    pool = createToolServicePool();
    const answer = await pool.callTool(service.address, request('echo', { deviceId: 9007199254740993n.toString() }), 'delegated-token-1', generous);

    expect(answer).toEqual({ ok: true, result: { content: [], structuredContentJson: '{"deviceId":"9007199254740993"}', isError: false } });
    const seen = service.received.at(-1);
    expect(seen?.request).toEqual({
      name: 'echo',
      argumentsJson: '{"deviceId":"9007199254740993"}',
      requestId: 'req-echo',
      client: null,
      inputResponsesJson: {},
    });
    expect(seen?.metadata.authorization).toBe('Bearer delegated-token-1');
    // Nothing else of the caller's: only gRPC's own headers besides the one credential.
    expect(Object.keys(seen?.metadata ?? {}).filter((key) => !key.startsWith('grpc-') && key !== 'user-agent')).toEqual(['authorization']);
  });

  it('passes an is_error answer through with its result and text', async () => {
    pool = createToolServicePool();
    expect(await pool.callTool(service.address, request('fails'), 'delegated', generous)).toEqual({
      ok: true,
      result: {
        content: [{ block: 'text', text: 'no such webhook', annotations: null }],
        structuredContentJson: '{"code":"NOT_FOUND","message":"no such webhook"}',
        isError: true,
      },
    });
  });

  it("answers a refusal with the service's status and details instead of throwing", async () => {
    pool = createToolServicePool();
    expect(await pool.callTool(service.address, request('denied'), 'delegated', generous)).toEqual({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
      details: 'needs device-overview:manage',
    });
    expect(await pool.callTool(service.address, request('missing'), 'delegated', generous)).toMatchObject({ ok: false, code: grpc.status.NOT_FOUND });
  });

  it('answers DEADLINE_EXCEEDED when the service does not answer in time, and the service sees the call end', async () => {
    pool = createToolServicePool();
    // Warm the channel first, so the short deadline is spent at the service and not on connecting.
    await pool.callTool(service.address, request('echo'), 'delegated', generous);
    const answer = await pool.callTool(service.address, { ...request('hangs'), requestId: 'deadline' }, 'delegated', { deadlineMs: 300 });

    expect(answer).toMatchObject({ ok: false, code: grpc.status.DEADLINE_EXCEEDED });
    await expect.poll(() => service.cancelled, { timeout: 5_000 }).toContain('deadline');
  });

  it('cancels the call when the signal aborts, and answers CANCELLED', async () => {
    pool = createToolServicePool();
    const controller = new AbortController();
    const answer = pool.callTool(service.address, { ...request('hangs'), requestId: 'aborted' }, 'delegated', {
      deadlineMs: 20_000,
      signal: controller.signal,
    });
    await expect.poll(() => service.received.some((seen) => seen.request.requestId === 'aborted'), { timeout: 5_000 }).toBe(true);
    controller.abort();

    expect(await answer).toMatchObject({ ok: false, code: grpc.status.CANCELLED });
    await expect.poll(() => service.cancelled, { timeout: 5_000 }).toContain('aborted');
  });

  it('sends nothing when the signal is already aborted', async () => {
    pool = createToolServicePool();
    const before = service.received.length;
    const answer = await pool.callTool(service.address, request('echo'), 'delegated', { deadlineMs: 5_000, signal: AbortSignal.abort() });

    expect(answer).toMatchObject({ ok: false, code: grpc.status.CANCELLED });
    expect(service.received).toHaveLength(before);
  });

  it('never calls the service without a delegated token', async () => {
    pool = createToolServicePool();
    const before = service.received.length;

    expect(await pool.callTool(service.address, request('echo'), '', generous)).toMatchObject({ ok: false, code: grpc.status.UNAUTHENTICATED });
    expect(service.received).toHaveLength(before);
  });

  it('answers UNAVAILABLE for a service nobody listens for', async () => {
    pool = createToolServicePool();
    const address = `127.0.0.1:${await closedPort()}`;

    expect(await pool.callTool(address, request('echo'), 'delegated', generous)).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });

  it('answers a status, not an exception, for an address grpc-js cannot parse or a token metadata cannot carry', async () => {
    pool = createToolServicePool();

    expect(await pool.callTool('not an address::', request('echo'), 'delegated', generous)).toMatchObject({ ok: false });
    expect(await pool.callTool(service.address, request('echo'), 'line\nbreak', generous)).toMatchObject({ ok: false, code: grpc.status.INTERNAL });
  });
});

describe('listTools', () => {
  it("returns the service's tools", async () => {
    pool = createToolServicePool();
    const tools = await pool.listTools(service.address, generous);

    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('rejects with a ToolServiceError naming the address when the service is unreachable', async () => {
    pool = createToolServicePool();
    const address = `127.0.0.1:${await closedPort()}`;
    const failure = await pool.listTools(address, generous).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ToolServiceError);
    expect(failure).toMatchObject({ code: 'TOOL_SERVICE_FAILED', status: grpc.status.UNAVAILABLE, address });
    expect((failure as Error).message).toContain(address);
  });
});

describe('channels', () => {
  it('are kept while a lease holds the address and closed when the last lease is released', async () => {
    pool = createToolServicePool();
    const first = pool.lease(service.address);
    const second = pool.lease(service.address);
    await pool.callTool(service.address, request('echo'), 'delegated', generous);
    expect(pool.openAddresses()).toEqual([service.address]);

    first.release();
    first.release();
    expect(pool.openAddresses()).toEqual([service.address]);
    second.release();
    expect(pool.openAddresses()).toEqual([]);
  });

  it('are not kept for an address no lease holds once its call is done', async () => {
    pool = createToolServicePool();
    await pool.listTools(service.address, generous);
    await pool.callTool(service.address, request('echo'), 'delegated', generous);

    expect(pool.openAddresses()).toEqual([]);
  });

  it('are all closed by close(), after which calls answer UNAVAILABLE', async () => {
    pool = createToolServicePool();
    pool.lease(service.address);
    pool.close();

    expect(pool.openAddresses()).toEqual([]);
    expect(await pool.callTool(service.address, request('echo'), 'delegated', generous)).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    await expect(pool.listTools(service.address, generous)).rejects.toBeInstanceOf(ToolServiceError);
  });
});

/** A service of the second revision: CallToolStream only, its events chosen by the tool's name; `revision` switches it to the first (CallTool only) to stand for a downgrade at the same address. */
async function startStreamingService() {
  let calls = { stream: 0, unary: 0 };
  let revision: 1 | 2 = 2;
  const server = new grpc.Server();
  server.addService(loadToolsProto().ToolService.service, {
    ListTools: (_call: unknown, callback: grpc.sendUnaryData<{ tools: [] }>) => {
      callback(null, { tools: [] });
    },
    CallToolStream: (call: grpc.ServerWritableStream<CallToolRequest__Output, CallToolEvent>) => {
      if (revision === 1) {
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'no such method' });
        return;
      }
      calls.stream += 1;
      if (call.request.name === 'asks') {
        call.write({ inputRequired: { requests: { confirm: { form: { message: 'Sure?', requestedSchemaJson: '{"type":"object","properties":{}}' } } } } });
        call.end();
        return;
      }
      if (call.request.name === 'breaks') {
        call.write({ progress: { progress: 1 } });
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'a status after events' });
        return;
      }
      call.write({ progress: { progress: 1, total: 2, message: 'half' } });
      call.write({ log: { level: 'LOG_LEVEL_INFO', logger: 'svc', dataJson: '"hello"' } });
      call.write({ result: { content: [{ text: `answered ${call.request.name}` }], structuredContentJson: call.request.argumentsJson, isError: false } });
      call.end();
    },
    CallTool: (call: grpc.ServerUnaryCall<CallToolRequest__Output, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      if (revision === 2) {
        callback({ code: grpc.status.UNIMPLEMENTED, details: 'no such method' });
        return;
      }
      calls.unary += 1;
      callback(null, { resultJson: call.request.argumentsJson, isError: false, text: 'unary' });
    },
  });
  const address = await bindOnLoopback(server, grpc.ServerCredentials.createInsecure());
  return {
    address,
    calls: () => calls,
    reset: () => {
      calls = { stream: 0, unary: 0 };
    },
    become: (next: 1 | 2) => {
      revision = next;
    },
    close: () => {
      server.forceShutdown();
    },
  };
}

describe('a service of the second revision (CallToolStream)', () => {
  it('hands on its progress and log events as they arrive, then its result', async () => {
    const streaming = await startStreamingService();
    pool = createToolServicePool();
    try {
      const events: ToolCallEvent[] = [];
      const answer = await pool.callTool(streaming.address, request('echo', { n: 1 }), 'delegated', { ...generous, onEvent: (event) => events.push(event) });
      expect(answer).toMatchObject({ ok: true, result: { structuredContentJson: '{"n":1}', content: [{ block: 'text', text: 'answered echo' }] } });
      expect(events).toEqual([
        { progress: { progress: 1, total: 2, message: 'half', _total: 'total' } },
        { log: { level: 'LOG_LEVEL_INFO', logger: 'svc', dataJson: '"hello"' } },
      ]);
      expect(streaming.calls()).toEqual({ stream: 1, unary: 0 });
    } finally {
      streaming.close();
    }
  });

  it('answers the questions a call ended with', async () => {
    const streaming = await startStreamingService();
    pool = createToolServicePool();
    try {
      expect(await pool.callTool(streaming.address, request('asks'), 'delegated', generous)).toMatchObject({
        ok: true,
        inputRequired: { requests: { confirm: { form: { message: 'Sure?' } } } },
      });
    } finally {
      streaming.close();
    }
  });

  it('is not called again another way when it fails after sending events', async () => {
    const streaming = await startStreamingService();
    pool = createToolServicePool();
    try {
      expect(await pool.callTool(streaming.address, request('breaks'), 'delegated', generous)).toEqual({
        ok: false,
        code: grpc.status.UNIMPLEMENTED,
        details: 'a status after events',
      });
      expect(streaming.calls()).toEqual({ stream: 1, unary: 0 });
    } finally {
      streaming.close();
    }
  });

  it('is called with CallTool once it answers CallToolStream UNIMPLEMENTED (a service built before), and with CallToolStream again once upgraded', async () => {
    const streaming = await startStreamingService();
    pool = createToolServicePool();
    const lease = pool.lease(streaming.address);
    try {
      streaming.become(1);
      expect(await pool.callTool(streaming.address, request('echo', { n: 2 }), 'delegated', generous)).toMatchObject({
        ok: true,
        result: { structuredContentJson: '{"n":2}', content: [{ text: 'unary' }] },
      });
      // Remembered for the address: straight to CallTool from now on.
      await pool.callTool(streaming.address, request('echo'), 'delegated', generous);
      expect(streaming.calls()).toEqual({ stream: 0, unary: 2 });

      streaming.reset();
      streaming.become(2);
      expect(await pool.callTool(streaming.address, request('echo', { n: 3 }), 'delegated', generous)).toMatchObject({
        ok: true,
        result: { structuredContentJson: '{"n":3}' },
      });
      expect(streaming.calls()).toEqual({ stream: 1, unary: 0 });
    } finally {
      lease.release();
      streaming.close();
    }
  });
});
