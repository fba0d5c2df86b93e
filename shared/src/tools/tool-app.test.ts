// The SDK's gRPC edge on a real loopback server, against a stand-in for GET /api/me: which calls
// reach a tool, with what context, and how every failure is answered.
import * as grpc from '@grpc/grpc-js';
import {
  captureLogs,
  healthClient,
  healthStatus,
  listen,
  manualClock,
  reflectedServices,
  startPlatformFixture,
  startRegistryFixture,
  toolClient,
  until,
  type ManualClock,
  type PlatformFixture,
  type StagedCaller,
} from '@platform/tool-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadToolsProto } from '@platform/proto';
import { createLogger } from '../service/logger.ts';
import type { PlatformMcpSettings } from '../settings/platform-settings.ts';
import { appClientId, identity, settingsFor } from '../../test/tool-app-parts.ts';
import type { PlatformMcpCallContext } from './call-context.ts';
import { createToolApp, type ServingToolApp } from './tool-app.ts';
import { defineTool, ToolDefinitionError } from './tool-definition.ts';
import { ToolError } from './tool-errors.ts';
import { registrationHealthName, toolServiceName } from './tool-server.ts';

/** A delegated caller as GET /api/me answers it: companies 1 (view, manage) and 2 (view). */
function delegatedCaller(platformUrl: string, overrides: Partial<StagedCaller> = {}): StagedCaller {
  return {
    id: 'u-oscar',
    audience: [platformUrl],
    actor: { clientId: appClientId },
    companies: [
      { id: 1, name: 'Acme', isOwner: false, roles: [], permissions: ['device-overview:view', 'device-overview:manage'] },
      { id: 2, name: 'Acme Field', isOwner: false, roles: [], permissions: ['device-overview:view'] },
    ],
    ...overrides,
  };
}

let seenContext: PlatformMcpCallContext | undefined;
// Set by the slow tool when it starts; a holder object, since the test reads it after awaits.
const slow: { release: (() => void) | undefined } = { release: undefined };

const tools = [
  defineTool({
    name: 'manage_at_company',
    title: 'Manage at a company',
    description: 'Needs manage at the company argument.',
    inputSchema: z.strictObject({ companyId: z.number().int().positive(), note: z.string().max(10).optional() }),
    requiresPermission: 'device-overview:manage',
    handler: (args, ctx) => {
      seenContext = ctx;
      return { companyId: args.companyId, callerId: ctx.callerId };
    },
  }),
  defineTool({
    name: 'view_anywhere',
    title: 'View anywhere',
    description: 'Needs view at some company.',
    inputSchema: z.strictObject({}),
    requiresPermission: 'device-overview:view',
    timeoutMs: 5_000,
    handler: () => ({ ok: true }),
  }),
  defineTool({
    name: 'manage_late',
    title: 'Manage, company learned late',
    description: 'Learns the company from its argument, then requires manage there.',
    inputSchema: z.strictObject({ webhookOf: z.number().int() }),
    handler: (args, ctx) => {
      ctx.requirePermission('device-overview:manage', args.webhookOf);
      return {
        allowed: true,
        owner: ctx.isOwner(args.webhookOf),
        viewAt2: ctx.hasPermission('device-overview:view', 2),
        manageAt2: ctx.hasPermission('device-overview:manage', 2),
      };
    },
  }),
  defineTool({
    name: 'expected_failure',
    title: 'Fails as expected',
    description: 'Reports a failure the agent should read.',
    inputSchema: z.strictObject({}),
    handler: () => {
      throw new ToolError('NOT_FOUND', 'webhook w-1 not found', { details: { status: 404 } });
    },
  }),
  defineTool({
    name: 'broken',
    title: 'Broken',
    description: 'Throws an unexpected error that holds a secret.',
    inputSchema: z.strictObject({}),
    handler: () => {
      throw new Error('database password is hunter2');
    },
  }),
  defineTool({
    name: 'wrong_output',
    title: 'Wrong output',
    description: 'Returns what its output schema refuses.',
    inputSchema: z.strictObject({}),
    outputSchema: z.object({ count: z.number() }),
    handler: () => ({ count: 'many' }) as unknown as { count: number },
  }),
  defineTool({
    name: 'waits_for_signal',
    title: 'Waits',
    description: 'Waits until the call is aborted.',
    inputSchema: z.strictObject({}),
    handler: (_args, ctx) =>
      new Promise<never>((_resolve, reject) => {
        seenContext = ctx;
        ctx.signal.addEventListener('abort', () => {
          reject(ctx.signal.reason as Error);
        });
      }),
  }),
  defineTool({
    name: 'ignores_signal',
    title: 'Ignores the deadline',
    description: 'Never looks at its signal.',
    inputSchema: z.strictObject({}),
    handler: (_args, ctx) => {
      seenContext = ctx;
      return new Promise<never>(() => undefined);
    },
  }),
  defineTool({
    name: 'slow',
    title: 'Slow',
    description: 'Finishes when the test says so.',
    inputSchema: z.strictObject({}),
    handler: () =>
      new Promise<{ done: boolean }>((resolve) => {
        slow.release = () => {
          resolve({ done: true });
        };
      }),
  }),
];

let platform: PlatformFixture;
let serving: ServingToolApp;
let logs: ReturnType<typeof captureLogs>;
const token = 'delegated-token-abc';

/** `clock`, when given, times the calls' deadlines and the registration's waits: the test moves it. */
async function serve(
  overrides: Partial<PlatformMcpSettings> = {},
  options: { register?: boolean; registry?: string; clock?: ManualClock } = {},
): Promise<ServingToolApp> {
  const app = createToolApp({
    settings: settingsFor(platform.url, { ...overrides, ...(options.registry && { gatewayAddress: options.registry }) }),
    identity: identity(),
    logger: createLogger({ name: 'tools-test', level: 'debug', destination: logs.destination }),
    registration: { backoff: { initialMs: 50, maxMs: 200 }, callTimeoutMs: 1_000 },
    ...(options.clock && { clock: options.clock, timers: options.clock }),
  });
  app.registerTools(tools);
  return app.serve({ register: options.register ?? false });
}

beforeEach(async () => {
  platform = await startPlatformFixture();
  logs = captureLogs();
  platform.stage(token, delegatedCaller(platform.url));
  serving = await serve();
});
afterEach(async () => {
  slow.release?.();
  slow.release = undefined;
  await serving.close(100);
  await platform.close();
  seenContext = undefined;
});

const clientOf = () => toolClient(serving.address);

/** A client whose connection is already up, so a short deadline is spent at the server, not on connecting. */
async function warmClient() {
  const client = clientOf();
  await client.list();
  return client;
}

describe('a tool call', () => {
  it('runs the tool with a context holding the delegated token, the caller and the request id', async () => {
    const client = clientOf();
    const answer = await client.call('manage_at_company', { companyId: 1 }, token, { requestId: 'mcp-req-42' });
    expect(answer).toMatchObject({ ok: true, result: { companyId: 1, callerId: 'u-oscar' }, isError: false, content: [], inputRequired: undefined });
    expect(seenContext?.authToken).toBe(token);
    expect(seenContext?.requestId).toBe('mcp-req-42');
    // An answered call is over, not cancelled: grpc-js's closing 'cancelled' must not abort it. Its
    // stream closed as its answer left, so by the answer to a second call on the same connection
    // that 'cancelled' has been heard.
    await client.list();
    expect(seenContext?.signal.aborted).toBe(false);
    expect(seenContext?.companies.map((c) => c.id)).toEqual([1, 2]);
    // The token is no own property: serializing or logging the context cannot write it.
    expect(JSON.stringify(seenContext)).not.toContain(token);
    seenContext?.logger.info({ ctx: seenContext }, 'from the tool');
    const line = logs.lines.find((l) => l.includes('from the tool')) ?? '';
    expect(JSON.parse(line)).toMatchObject({ requestId: 'mcp-req-42', tool: 'manage_at_company' });
    expect(logs.lines.join('\n')).not.toContain(token);
  });

  it('makes up a request id when the gateway sends a malformed one', async () => {
    await clientOf().call('manage_at_company', { companyId: 1 }, token, { requestId: 'bad id\nforged line' });
    expect(seenContext?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('checks the token once while the check is cached, and again for a new token string', async () => {
    const client = clientOf();
    for (let i = 0; i < 3; i += 1) expect((await client.call('view_anywhere', {}, token)).ok).toBe(true);
    expect(platform.calls(token)).toBe(1);
    platform.stage('another-token', delegatedCaller(platform.url));
    expect((await client.call('view_anywhere', {}, 'another-token')).ok).toBe(true);
    expect(platform.calls('another-token')).toBe(1);
  });

  it('answers ListTools with every tool, its JSON Schema and its permission, and needs no token', async () => {
    const listed = await clientOf().list();
    expect(listed.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(listed[0]).toMatchObject({ name: 'manage_at_company', requiresPermission: 'device-overview:manage', readOnlyHint: false, timeoutMs: 0 });
    // A tool's own time limit travels with it, for the gateway to give its calls.
    expect(listed[1]).toMatchObject({ name: 'view_anywhere', timeoutMs: 5_000 });
    expect(JSON.parse(listed[0]?.inputSchemaJson ?? '')).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(JSON.parse(listed[5]?.outputSchemaJson ?? '')).toMatchObject({ properties: { count: { type: 'number' } } });
  });
});

describe('the token', () => {
  const unauthenticated = { ok: false, codeName: 'UNAUTHENTICATED' };

  it('is required', async () => {
    expect(await clientOf().call('view_anywhere', {}, undefined)).toMatchObject({
      ...unauthenticated,
      details: 'the delegated token was refused: a Bearer credential is required',
    });
  });

  // (grpc-js itself refuses to send two authorization values, so only the scheme is left to test here.)
  it('must be a Bearer credential', async () => {
    expect(await clientOf().call('view_anywhere', {}, undefined, { authorization: [`ApiToken ${token}`] })).toMatchObject(unauthenticated);
  });

  it("is refused when it is a person's own token (no actor)", async () => {
    platform.stage('person-token', delegatedCaller(platform.url, { actor: undefined }));
    expect(await clientOf().call('view_anywhere', {}, 'person-token')).toMatchObject({
      ...unauthenticated,
      details: 'the delegated token was refused: the token is not delegated to this app',
    });
  });

  it('is refused when it is delegated to another app', async () => {
    platform.stage('other-app-token', delegatedCaller(platform.url, { actor: { clientId: 'fleet-insights' } }));
    expect(await clientOf().call('view_anywhere', {}, 'other-app-token')).toMatchObject({
      ...unauthenticated,
      details: 'the delegated token was refused: the token is not delegated to this app',
    });
  });

  it('is refused when it was issued for another audience (the MCP server)', async () => {
    platform.stage('mcp-token', delegatedCaller(platform.url, { audience: ['http://127.0.0.1:3000/mcp'] }));
    expect(await clientOf().call('view_anywhere', {}, 'mcp-token')).toMatchObject({
      ...unauthenticated,
      details: 'the delegated token was refused: the token was not issued for this service',
    });
  });

  it('is refused when the platform refuses it, and checked again on the next call', async () => {
    expect(await clientOf().call('view_anywhere', {}, 'unknown-token')).toMatchObject(unauthenticated);
    expect(await clientOf().call('view_anywhere', {}, 'unknown-token')).toMatchObject(unauthenticated);
    expect(platform.calls('unknown-token')).toBe(2);
    platform.stage('unknown-token', delegatedCaller(platform.url));
    expect((await clientOf().call('view_anywhere', {}, 'unknown-token')).ok).toBe(true);
  });

  it('is never reported as refused when the platform is down: UNAVAILABLE, and nothing is cached', async () => {
    platform.stage('t-503', { status: 503, body: '{"error":"maintenance"}' });
    expect(await clientOf().call('view_anywhere', {}, 't-503')).toMatchObject({
      ok: false,
      codeName: 'UNAVAILABLE',
      details: expect.stringContaining('the platform answered 503') as unknown,
    });
    platform.stage('t-garbage', { status: 200, body: '<html>' });
    expect(await clientOf().call('view_anywhere', {}, 't-garbage')).toMatchObject({ ok: false, codeName: 'UNAVAILABLE' });
    platform.stage('t-503', delegatedCaller(platform.url));
    expect((await clientOf().call('view_anywhere', {}, 't-503')).ok).toBe(true);
  });

  it('is UNAVAILABLE, not UNAUTHENTICATED, when the platform cannot be reached', async () => {
    await serving.close(100);
    serving = await serve({ apiBaseUrl: 'http://127.0.0.1:9' });
    expect(await clientOf().call('view_anywhere', {}, token)).toMatchObject({
      ok: false,
      codeName: 'UNAVAILABLE',
      details: expect.stringContaining('could not be reached') as unknown,
    });
  });
});

describe('the permission', () => {
  it('is checked at the companyId argument before the tool runs', async () => {
    const answer = await clientOf().call('manage_at_company', { companyId: 2 }, token);
    expect(answer).toEqual({
      ok: false,
      events: [],
      code: grpc.status.PERMISSION_DENIED,
      codeName: 'PERMISSION_DENIED',
      details: 'device-overview:manage is needed at company 2, and the person and the app do not both hold it there.',
    });
    expect(seenContext).toBeUndefined();
  });

  it('is denied at a company the token does not reach at all', async () => {
    expect(await clientOf().call('manage_at_company', { companyId: 3 }, token)).toMatchObject({
      codeName: 'PERMISSION_DENIED',
      details: expect.stringContaining('at company 3') as unknown,
    });
  });

  it('is checked at some company when the tool has no companyId argument', async () => {
    platform.stage(
      'no-view',
      delegatedCaller(platform.url, { companies: [{ id: 1, name: 'Acme', isOwner: false, roles: [], permissions: ['webhook-tools:use'] }] }),
    );
    expect((await clientOf().call('view_anywhere', {}, token)).ok).toBe(true);
    expect(await clientOf().call('view_anywhere', {}, 'no-view')).toMatchObject({
      codeName: 'PERMISSION_DENIED',
      details: expect.stringContaining('device-overview:view is needed at any company') as unknown,
    });
  });

  it('gives an owner no bypass: isOwner is false and only the listed permissions count', async () => {
    platform.stage(
      'owner',
      delegatedCaller(platform.url, { companies: [{ id: 1, name: 'Acme', isOwner: true, roles: ['owner'], permissions: ['device-overview:view'] }] }),
    );
    expect(await clientOf().call('manage_at_company', { companyId: 1 }, 'owner')).toMatchObject({ codeName: 'PERMISSION_DENIED' });
    expect(await clientOf().call('manage_late', { webhookOf: 1 }, 'owner')).toMatchObject({ codeName: 'PERMISSION_DENIED' });
  });

  it('can be required by the tool once it learns the company, and asked with hasPermission', async () => {
    expect(await clientOf().call('manage_late', { webhookOf: 1 }, token)).toMatchObject({
      ok: true,
      result: { allowed: true, owner: false, viewAt2: true, manageAt2: false },
    });
    expect(await clientOf().call('manage_late', { webhookOf: 2 }, token)).toMatchObject({
      codeName: 'PERMISSION_DENIED',
      details: expect.stringContaining('device-overview:manage is needed at company 2') as unknown,
    });
  });
});

describe('the arguments', () => {
  it.each([
    ['JSON that does not parse', '{"companyId":', 'arguments_json: is not valid JSON'],
    ['an array', '[1]', 'arguments_json: must be a JSON object'],
    ['null', 'null', 'arguments_json: must be a JSON object'],
    ['a wrong type', '{"companyId":"1"}', 'companyId: Invalid input: expected number, received string'],
    ['an unknown key', '{"companyId":1,"extra":true}', 'arguments: Unrecognized key: "extra"'],
    ['a string too long', '{"companyId":1,"note":"01234567890"}', 'note: Too big: expected string to have <=10 characters'],
  ])('are INVALID_ARGUMENT naming the field for %s', async (_what, argumentsJson, details) => {
    expect(await clientOf().call('manage_at_company', argumentsJson, token)).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT', details });
    expect(seenContext).toBeUndefined();
  });

  it('are checked only after the token: an unauthenticated caller learns nothing about them', async () => {
    expect(await clientOf().call('manage_at_company', '{', undefined)).toMatchObject({ codeName: 'UNAUTHENTICATED' });
  });

  it('may not exceed 1 MiB', async () => {
    expect(await clientOf().call('manage_at_company', { companyId: 1, note: 'x'.repeat(1_100_000) }, token)).toMatchObject({
      ok: false,
      codeName: 'RESOURCE_EXHAUSTED',
    });
  });

  it('may not nest deeper than 64 levels', async () => {
    const deep = `{"companyId":1,"note":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    expect(await clientOf().call('manage_at_company', deep, token)).toMatchObject({
      codeName: 'INVALID_ARGUMENT',
      details: 'arguments_json: nests deeper than 64 levels',
    });
    const fine = `{"companyId":1,"extra":${'['.repeat(60)}${']'.repeat(60)}}`;
    expect(await clientOf().call('manage_at_company', fine, token)).toMatchObject({
      codeName: 'INVALID_ARGUMENT',
      details: 'arguments: Unrecognized key: "extra"',
    });
  });

  it('are refused in a short message, whatever their size, and the connection carries on for other calls', async () => {
    const client = clientOf();
    const running = client.call('slow', {}, token);
    await expect.poll(() => slow.release).toBeDefined();
    const huge = await client.call('manage_at_company', `{"companyId":1,"${'K'.repeat(200_000)}":1}`, token);
    expect(huge).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    expect((huge.ok ? '' : huge.details).length).toBeLessThanOrEqual(1_024);
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 1])));
    const manyAnswer = await client.call('manage_at_company', many, token);
    expect(manyAnswer).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    expect((manyAnswer.ok ? '' : manyAnswer.details).length).toBeLessThanOrEqual(1_024);
    slow.release?.();
    expect(await running).toMatchObject({ ok: true });
    expect(await client.call('view_anywhere', {}, token)).toMatchObject({ ok: true });
    expect(Math.max(...logs.lines.map((line) => line.length))).toBeLessThan(4_096);
  });
});

describe('the outcome of a call', () => {
  it('is NOT_FOUND for a tool this service does not have', async () => {
    expect(await clientOf().call('no_such_tool', {}, token)).toMatchObject({
      ok: false,
      codeName: 'NOT_FOUND',
      details: 'this service has no tool named "no_such_tool"',
    });
  });

  it("is OK with is_error for the tool's own expected failure, with a message the agent can act on", async () => {
    expect(await clientOf().call('expected_failure', {}, token)).toMatchObject({
      ok: true,
      isError: true,
      text: 'webhook w-1 not found',
      result: { code: 'NOT_FOUND', message: 'webhook w-1 not found', status: 404 },
    });
  });

  it('is INTERNAL with a generic message for anything else; the cause is logged, never sent', async () => {
    const answer = await clientOf().call('broken', {}, token);
    expect(answer).toEqual({
      ok: false,
      events: [],
      code: grpc.status.INTERNAL,
      codeName: 'INTERNAL',
      details: 'The tool failed unexpectedly; the tool service logged the cause.',
    });
    expect(logs.lines.some((line) => line.includes('hunter2') && line.includes('"outcome":"INTERNAL"'))).toBe(true);
  });

  it('is INTERNAL when the result breaks the declared output schema', async () => {
    expect(await clientOf().call('wrong_output', {}, token)).toMatchObject({ codeName: 'INTERNAL' });
    expect(logs.lines.some((line) => line.includes('outputSchema refuses'))).toBe(true);
  });

  it('takes a cancellation just before the deadline for the deadline: the client ends the stream at its own, earlier by the time in transit', async () => {
    const clock = manualClock(Date.now());
    await serving.close(100);
    serving = await serve({}, { clock });
    const client = new (loadToolsProto().ToolService)(serving.address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const deadline = Date.now() + 5_000;
    const call = client.CallToolStream({ name: 'waits_for_signal', argumentsJson: '{}', requestId: 'r-at-deadline' }, metadata, { deadline });
    call.on('error', () => undefined);
    await expect.poll(() => seenContext).toBeDefined();
    // What a client at its deadline does, as it arrives on a loaded machine: cancels, 100 ms before ours.
    clock.advance(deadline - 100 - clock());
    expect(seenContext?.signal.aborted).toBe(false);
    call.cancel();
    await expect
      .poll(() => logs.lines.some((line) => line.includes('"requestId":"r-at-deadline"') && line.includes('"outcome":"DEADLINE_EXCEEDED"')))
      .toBe(true);
    client.close();
  });

  it('aborts the tool when the gateway cancels the call', async () => {
    const client = new (loadToolsProto().ToolService)(serving.address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const outcome = new Promise<grpc.ServiceError | null>((resolve) => {
      const call = client.CallToolStream({ name: 'waits_for_signal', argumentsJson: '{}', requestId: 'r-cancel' }, metadata);
      call.on('error', resolve);
      call.on('end', () => {
        resolve(null);
      });
      void expect
        .poll(() => seenContext)
        .toBeDefined()
        .then(() => {
          call.cancel();
        });
    });
    expect((await outcome)?.code).toBe(grpc.status.CANCELLED);
    await expect.poll(() => seenContext?.signal.aborted, { timeout: 3_000 }).toBe(true);
    expect(String((seenContext?.signal.reason as Error | undefined)?.message)).toBe('The gateway cancelled the call.');
    await expect.poll(() => logs.lines.some((line) => line.includes('"requestId":"r-cancel"') && line.includes('"outcome":"CANCELLED"'))).toBe(true);
    client.close();
  });

  it('is DEADLINE_EXCEEDED at the deadline, and the tool sees its signal aborted', async () => {
    const clock = manualClock(Date.now());
    await serving.close(100);
    serving = await serve({}, { clock });
    const client = await warmClient();
    // The client's own deadline is far off in real time: the answer is the server's, at its deadline on the clock.
    const deadline = Date.now() + 5_000;
    const answering = client.call('waits_for_signal', {}, token, { deadlineMs: 5_000 });
    await expect.poll(() => seenContext).toBeDefined();
    clock.advance(deadline + 1_000 - clock());
    expect(seenContext?.signal.aborted).toBe(true);
    expect(await answering).toMatchObject({ ok: false, codeName: 'DEADLINE_EXCEEDED' });
    expect(logs.lines.some((line) => line.includes('"outcome":"DEADLINE_EXCEEDED"'))).toBe(true);
  });

  it('never runs the tool when the deadline passes while the platform is still checking the token', async () => {
    // The platform answers the token check only when the test lets it.
    let answerCheck: (() => void) | undefined;
    const slowPlatform = await listen((_req, res) => {
      answerCheck = () => {
        answerCheck = undefined;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(delegatedCaller(slowPlatform.url)));
      };
    });
    try {
      const clock = manualClock(Date.now());
      await serving.close(100);
      serving = await serve({ apiBaseUrl: slowPlatform.url }, { clock });
      const client = await warmClient();
      const deadline = Date.now() + 5_000;
      const answering = client.call('manage_at_company', { companyId: 1 }, token, { deadlineMs: 5_000 });
      await expect.poll(() => answerCheck).toBeDefined();
      clock.advance(deadline + 1_000 - clock());
      answerCheck?.();
      expect(await answering).toMatchObject({ codeName: 'DEADLINE_EXCEEDED' });
      // The call is settled (and logged) past the platform's answer: the handler would have run by now.
      expect(logs.lines.some((line) => line.includes('"tool":"manage_at_company"') && line.includes('DEADLINE_EXCEEDED'))).toBe(true);
      expect(seenContext).toBeUndefined();
    } finally {
      await slowPlatform.close();
    }
  });

  it('is DEADLINE_EXCEEDED even for a tool that ignores its signal, and the call does not stay running', async () => {
    const clock = manualClock(Date.now());
    await serving.close(100);
    serving = await serve({}, { clock });
    const client = await warmClient();
    const deadline = Date.now() + 5_000;
    const answering = client.call('ignores_signal', {}, token, { deadlineMs: 5_000 });
    await expect.poll(() => seenContext).toBeDefined();
    clock.advance(deadline + 1_000 - clock());
    expect(await answering).toMatchObject({ codeName: 'DEADLINE_EXCEEDED' });
    expect(logs.lines.some((line) => line.includes('"tool":"ignores_signal"') && line.includes('DEADLINE_EXCEEDED'))).toBe(true);
  });
});

describe('serving', () => {
  it('offers the standard health service: SERVING, then NOT_SERVING as it stops, without waiting on the watchers', async () => {
    expect(await healthStatus(serving.address)).toBe('SERVING');
    expect(await healthStatus(serving.address, toolServiceName)).toBe('SERVING');
    expect(await healthStatus(serving.address, 'no.such.Service')).toBe('NOT_FOUND');
    const health = healthClient(serving.address);
    const watched: string[] = [];
    const watch = health.Watch({ service: '' });
    watch.on('data', (message: { status: string }) => watched.push(message.status));
    watch.on('error', () => undefined);
    await expect.poll(() => watched).toEqual(['SERVING']);

    const running = clientOf().call('slow', {}, token);
    await expect.poll(() => slow.release).toBeDefined();
    const started = Date.now();
    const closing = serving.close(5_000);
    await expect.poll(() => watched).toEqual(['SERVING', 'NOT_SERVING']);
    slow.release?.();
    expect(await running).toMatchObject({ ok: true, result: { done: true } });
    await closing;
    expect(Date.now() - started).toBeLessThan(2_000);
    health.close();
  });

  it('offers server reflection listing the tool service and health, as grpcurl list would', async () => {
    expect(await reflectedServices(serving.address)).toEqual(['grpc.health.v1.Health', toolServiceName]);
  });

  it('says through its health service whether the gateway holds its registration: NOT_SERVING until the gateway accepts it, then SERVING', async () => {
    const clock = manualClock(Date.now());
    const registry = await startRegistryFixture({ clock });
    try {
      await serving.close(100);
      registry.refuseAll(true);
      serving = await serve({}, { register: true, registry: registry.address, clock });
      const registered = () => healthStatus(serving.address, registrationHealthName);
      // Serving, but not offered to clients yet: the gateway refuses the Register.
      await expect.poll(() => registry.calls.length).toBeGreaterThan(0);
      expect([await healthStatus(serving.address), await registered()]).toEqual(['SERVING', 'NOT_SERVING']);
      registry.refuseAll(false);
      await until(() => clock.pendingTimers().length > 0, 'the registration waits to try again');
      clock.advance(clock.pendingTimers()[0] ?? 0);
      await expect.poll(registered).toBe('SERVING');
    } finally {
      await registry.close();
    }
  });

  it('is NOT_SERVING for the registration when the service does not register', async () => {
    expect(await healthStatus(serving.address, registrationHealthName)).toBe('NOT_SERVING');
  });

  it('goes NOT_SERVING for the registration when the gateway forgets it, and SERVING again once registered anew', async () => {
    const clock = manualClock(Date.now());
    const registry = await startRegistryFixture({ clock });
    try {
      await serving.close(100);
      serving = await serve({}, { register: true, registry: registry.address, clock });
      await expect.poll(() => healthStatus(serving.address, registrationHealthName)).toBe('SERVING');
      // What a watcher of the health service sees (grpc.health.v1.Health/Watch), every change.
      const watcher = healthClient(serving.address);
      const seen: string[] = [];
      const stream = watcher.Watch({ service: registrationHealthName });
      stream.on('data', (message: { status: string }) => seen.push(message.status));
      stream.on('error', () => undefined);
      await expect.poll(() => seen).toEqual(['SERVING']);
      registry.forgetAll(); // as a restarted gateway: the next heartbeat is answered NOT_FOUND
      await until(() => clock.pendingTimers().length > 0, 'the registration waits for its next heartbeat');
      clock.advance(clock.pendingTimers()[0] ?? 0);
      await expect.poll(() => seen).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
      expect(registry.calls.map((call) => call.outcome)).toEqual(['ok', 'NOT_FOUND', 'ok']);
      stream.cancel();
      watcher.close();
    } finally {
      await registry.close();
    }
  });

  it('lets running calls finish before it deregisters from the gateway', async () => {
    const clock = manualClock(Date.now());
    const registry = await startRegistryFixture({ clock });
    try {
      await serving.close(100);
      serving = await serve({}, { register: true, registry: registry.address, clock });
      await expect.poll(() => registry.alive().length).toBe(1);
      const running = clientOf().call('slow', {}, token);
      await expect.poll(() => slow.release).toBeDefined();
      const closing = serving.close(5_000);
      // While the call runs the service stays registered: its next heartbeat still goes out.
      await until(() => clock.pendingTimers().length > 0, 'the registration waits for its next heartbeat');
      clock.advance(clock.pendingTimers()[0] ?? 0);
      await expect.poll(() => registry.calls.map((call) => call.method)).toEqual(['Register', 'Heartbeat']);
      expect(registry.alive()).toHaveLength(1);
      slow.release?.();
      expect(await running).toMatchObject({ ok: true });
      await closing;
      expect(registry.calls.at(-1)).toMatchObject({ method: 'Deregister', outcome: 'ok', authorization: 'Bearer app-token' });
      expect(registry.alive()).toEqual([]);
    } finally {
      await registry.close();
    }
  });
});

describe('registering tools', () => {
  it('refuses a name used twice, naming it', () => {
    const app = createToolApp({ settings: settingsFor('http://127.0.0.1:9'), identity: identity(), logger: createLogger({ name: 't', level: 'silent' }) });
    const viewAnywhere = tools.slice(1, 2);
    app.registerTools(viewAnywhere);
    expect(() => {
      app.registerTools(viewAnywhere);
    }).toThrow(new ToolDefinitionError('tool "view_anywhere": name is used by another tool of this service'));
  });

  it('refuses an identity that is not the one of the settings', () => {
    expect(() =>
      createToolApp({
        settings: settingsFor('http://127.0.0.1:9', { appClientId: 'other' }),
        identity: identity(),
        logger: createLogger({ name: 't', level: 'silent' }),
      }),
    ).toThrow('createToolApp: identity must be the identity of settings.appClientId');
  });
});
