import { status } from '@grpc/grpc-js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { PlatformError } from '@platform/shared';
import { describe, expect, it } from 'vitest';
import { DelegationError } from '../delegation/index.ts';
import type { RemoteTool, ToolServiceAnswer } from '../remote-tools.ts';
import { delegationFailure, toolResult } from './tool-result.ts';

function remoteTool(overrides: Partial<RemoteTool> = {}): RemoteTool {
  return {
    exposedName: 'create_webhook',
    name: 'create_webhook',
    title: 'Create a webhook',
    description: 'Creates a webhook configuration.',
    inputSchema: { type: 'object' },
    outputSchema: undefined,
    requiresPermission: 'device-overview:manage',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    service: {
      registrationId: 'r-1',
      serviceName: 'webhook-tools',
      appClientId: 'webhook-tools',
      appKey: 'webhook-tools',
      callbackAddress: '127.0.0.1:50051',
      actorToken: () => 'actor',
    },
    ...overrides,
  };
}

const tool = remoteTool();
const readOnlyTool = remoteTool({ exposedName: 'list_webhooks', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } });
const answered = (resultJson: string, text = '', isError = false): ToolServiceAnswer => ({ ok: true, resultJson, isError, text });
const refused = (code: number, details = ''): ToolServiceAnswer => ({ ok: false, code, details });
const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('toolResult for what the tool produced', () => {
  it('passes a JSON object through as structured content, with its JSON as the text', () => {
    const json = '{"id":"wh-1","name":"Boiler","nested":{"n":7}}';
    expect(toolResult(answered(json), tool)).toEqual({
      content: [{ type: 'text', text: json }],
      structuredContent: { id: 'wh-1', name: 'Boiler', nested: { n: 7 } },
    });
  });

  it("shows the tool's own text when it gave one", () => {
    expect(toolResult(answered('{"deleted":true}', 'Webhook wh-1 deleted.'), tool)).toEqual({
      content: [{ type: 'text', text: 'Webhook wh-1 deleted.' }],
      structuredContent: { deleted: true },
    });
  });

  it.each([
    ['an array', '[1,2,3]'],
    ['a number', '42'],
    ['null', 'null'],
  ])('shows %s as text, without structured content, when the tool declares no result schema', (_case, json) => {
    expect(toolResult(answered(json), tool)).toEqual({ content: [{ type: 'text', text: json }] });
  });

  it('answers an empty result with empty content', () => {
    expect(toolResult(answered(''), tool)).toEqual({ content: [] });
  });

  it('calls a result that is not an object unreadable when the tool declares a result schema', () => {
    const result = toolResult(answered('[1,2]'), remoteTool({ outputSchema: { type: 'object' } }));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'UNREADABLE_RESULT' });
    expect(textOf(result)).toContain('not the object its result schema declares');
  });

  it('calls a result that is not JSON unreadable, and says a write may have happened', () => {
    const result = toolResult(answered('{"id": wh-1'), tool);
    expect(result).toEqual({
      content: [{ type: 'text', text: expect.any(String) as string }],
      structuredContent: { code: 'UNREADABLE_RESULT', message: textOf(result) },
      isError: true,
    });
    expect(textOf(result)).toBe(
      'The service of the tool create_webhook answered something unreadable, so its result is unknown. It may or may not have taken effect: check before calling it again.',
    );
  });
});

describe("toolResult for the tool's own failure (is_error)", () => {
  it('passes the text and the structured content through as they are', () => {
    const json = '{"code":"WEBHOOK_API_404","message":"No webhook wh-9 at company 1.","status":404}';
    expect(toolResult(answered(json, 'No webhook wh-9 at company 1.', true), tool)).toEqual({
      content: [{ type: 'text', text: 'No webhook wh-9 at company 1.' }],
      structuredContent: { code: 'WEBHOOK_API_404', message: 'No webhook wh-9 at company 1.', status: 404 },
      isError: true,
    });
  });

  it('shows the JSON when the tool gave no text', () => {
    const json = '{"code":"CONFLICT","message":"already linked"}';
    expect(toolResult(answered(json, '', true), tool)).toMatchObject({ content: [{ type: 'text', text: json }], isError: true });
  });

  it("keeps the tool's text when its structured part cannot be read", () => {
    expect(toolResult(answered('not json', 'The device is offline.', true), tool)).toEqual({
      content: [{ type: 'text', text: 'The device is offline.' }],
      isError: true,
    });
  });

  it('calls a failure with neither text nor readable JSON unreadable', () => {
    expect(toolResult(answered('not json', '', true), tool).structuredContent).toMatchObject({ code: 'UNREADABLE_RESULT' });
  });
});

describe('toolResult for a gRPC status', () => {
  it.each<[string, number, string, string, RemoteTool]>([
    [
      'PERMISSION_DENIED',
      status.PERMISSION_DENIED,
      'device-overview:manage is needed at company 1, and the person and the app do not both hold it there.',
      "The tool create_webhook was refused: device-overview:manage is needed at company 1, and the person and the app do not both hold it there. Both the person and the app webhook-tools must hold it there. An administrator can grant the person a role that has it, or the app's consent; retrying will not help until then.",
      tool,
    ],
    [
      'PERMISSION_DENIED',
      status.PERMISSION_DENIED,
      '',
      "The tool create_webhook was refused: the person and the app webhook-tools do not both hold device-overview:manage at the company concerned. An administrator can grant the person a role that has it, or the app's consent; retrying will not help until then.",
      tool,
    ],
    [
      'UNAUTHENTICATED',
      status.UNAUTHENTICATED,
      'The call needs a valid token delegated to this app.',
      'The service of the tool create_webhook did not accept the token delegated to the app webhook-tools for this call: your sign-in may have expired or been revoked, ' +
        'or the service at that address does not run as webhook-tools. Try again; if it repeats, sign in again, and if that does not help, tell the tool’s operator.',
      tool,
    ],
    [
      'INVALID_ARGUMENT',
      status.INVALID_ARGUMENT,
      'companyId: Invalid input: expected number, received string',
      'The arguments do not fit the tool create_webhook: companyId: Invalid input: expected number, received string. Fix the arguments and call it again.',
      tool,
    ],
    [
      'INVALID_ARGUMENT',
      status.INVALID_ARGUMENT,
      '',
      'The arguments do not fit the tool create_webhook: they do not match its input schema. Fix the arguments and call it again.',
      tool,
    ],
    [
      'NOT_FOUND',
      status.NOT_FOUND,
      'This service has no tool of that name.',
      'The tool create_webhook is no longer known to its service (webhook-tools); the tool list may be stale. List the tools again.',
      tool,
    ],
    [
      'UNAVAILABLE',
      status.UNAVAILABLE,
      'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:50051',
      'The tool create_webhook could not be run: its service or the platform is unavailable right now. This is an outage, not a problem with your request; try again later.',
      tool,
    ],
    [
      'DEADLINE_EXCEEDED',
      status.DEADLINE_EXCEEDED,
      'Deadline exceeded after 30.002s',
      "The tool create_webhook did not finish within the gateway's time limit. It may or may not have taken effect: check before calling it again.",
      tool,
    ],
    [
      'DEADLINE_EXCEEDED',
      status.DEADLINE_EXCEEDED,
      '',
      "The tool list_webhooks did not finish within the gateway's time limit. The tool only reads, so calling it again is safe.",
      readOnlyTool,
    ],
    [
      'RESOURCE_EXHAUSTED',
      status.RESOURCE_EXHAUSTED,
      'Received message larger than max (5242880 vs. 4194304)',
      'The call to create_webhook was larger than the gateway and its service accept (its arguments, or its result). Send smaller arguments, or ask for less, and try again.',
      tool,
    ],
    [
      'CANCELLED',
      status.CANCELLED,
      'Cancelled on client',
      'The call to create_webhook was cancelled before it finished. It may or may not have taken effect: check before calling it again.',
      tool,
    ],
    [
      'TOOL_FAILED',
      status.INTERNAL,
      'TypeError: cannot read properties of undefined at /srv/tools/webhooks.ts:42',
      "The tool create_webhook failed unexpectedly; its service logged the cause. Try again later; if it fails again, tell the tool's operator.",
      tool,
    ],
    [
      'TOOL_FAILED',
      status.UNKNOWN,
      'Error: boom',
      "The tool create_webhook failed unexpectedly; its service logged the cause. Try again later; if it fails again, tell the tool's operator.",
      tool,
    ],
  ])('maps %s (%i) with details %j', (code, grpcStatus, details, message, which) => {
    expect(toolResult(refused(grpcStatus, details), which)).toEqual({
      content: [{ type: 'text', text: message }],
      structuredContent: { code, message },
      isError: true,
    });
  });

  it('names the deadline when it is known', () => {
    expect(textOf(toolResult(refused(status.DEADLINE_EXCEEDED), tool, { timeoutMs: 30_000 }))).toMatch(
      /^The tool create_webhook did not finish within 30000 ms\./,
    );
  });

  it('says an idempotent write may be sent again', () => {
    const idempotent = remoteTool({ annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } });
    expect(textOf(toolResult(refused(status.CANCELLED), idempotent))).toContain('calling it again with the same arguments is safe');
  });

  it("keeps a service's details to one clipped line", () => {
    const text = textOf(toolResult(refused(status.INVALID_ARGUMENT, `name:\n${'x'.repeat(5_000)}`), tool));
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThan(1_200);
  });
});

describe('delegationFailure', () => {
  it('says the tool was not called, and why, for each DelegationError', () => {
    const error = new DelegationError('EXCHANGE_DISABLED');
    expect(delegationFailure(error, tool)).toEqual({
      content: [{ type: 'text', text: `No delegated token could be obtained, so the tool create_webhook was not called: ${error.message}` }],
      structuredContent: {
        code: 'NO_DELEGATED_TOKEN',
        reason: 'EXCHANGE_DISABLED',
        message: `No delegated token could be obtained, so the tool create_webhook was not called: ${error.message}`,
      },
      isError: true,
    });
  });

  it('passes the reason the platform gave', () => {
    const error = new DelegationError('ACTOR_REFUSED', { reason: "client legacy-sync: the actor's client legacy-sync is linked to no app" });
    expect(textOf(delegationFailure(error, tool))).toContain('legacy-sync is linked to no app');
  });

  it('calls a PlatformError an outage, never the caller’s fault', () => {
    const result = delegationFailure(new PlatformError('PLATFORM_UNAVAILABLE'), tool);
    expect(result.structuredContent).toMatchObject({ code: 'NO_DELEGATED_TOKEN', reason: 'PLATFORM_UNAVAILABLE' });
    expect(textOf(result)).toContain('This is an outage, not a problem with your request');
  });

  it('shows nothing of an unexpected error', () => {
    const result = delegationFailure(new Error('secret internals at /srv/gateway.ts:1'), tool);
    expect(result.structuredContent).toMatchObject({ code: 'NO_DELEGATED_TOKEN', reason: 'UNEXPECTED' });
    expect(textOf(result)).not.toContain('internals');
  });
});
