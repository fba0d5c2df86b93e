import { status } from '@grpc/grpc-js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { PlatformError } from '@platform/tool-sdk';
import { describe, expect, it } from 'vitest';
import { DelegationError } from '../delegation/index.ts';
import { answerTooLarge } from '../tool-services/index.ts';
import type { RemoteTool } from '../remote-tools.ts';
import { remoteTool } from '../../test/fixtures/remote-tool.ts';
import { delegationFailure, errorMetaKey, toolResult, type FinishedAnswer } from './tool-result.ts';

const tool = remoteTool();
const readOnlyTool = remoteTool({ exposedName: 'list_webhooks', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } });
/** An answer as a service of the first revision gives it (through the pool's reading of CallTool): text and JSON. */
const answered = (resultJson: string, text = '', isError = false): FinishedAnswer => ({
  ok: true,
  result: { content: text === '' ? [] : [{ block: 'text', text, annotations: null }], structuredContentJson: resultJson, isError },
});
const refused = (code: number, details = ''): FinishedAnswer => ({ ok: false, code, details });
const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
/** A failure's code and details, where every result puts them. */
const errorOf = (result: CallToolResult) => result._meta?.[errorMetaKey];

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
    expect(errorOf(result)).toEqual({ code: 'UNREADABLE_RESULT' });
    expect(textOf(result)).toContain('not the object its result schema declares');
  });

  it('calls a result that is not JSON unreadable, and says a write may have happened', () => {
    const result = toolResult(answered('{"id": wh-1'), tool);
    expect(result).toEqual({
      content: [{ type: 'text', text: expect.any(String) as string }],
      isError: true,
      _meta: { [errorMetaKey]: { code: 'UNREADABLE_RESULT' } },
    });
    expect(textOf(result)).toBe(
      'The service of the tool create_webhook answered something unreadable, so its result is unknown. It may or may not have taken effect: check before calling it again.',
    );
  });
});

describe("toolResult for the tool's own failure (is_error)", () => {
  it('shows its text, and its code and details in _meta, never as structured content its output schema would refuse', () => {
    const json = '{"code":"WEBHOOK_API_404","message":"No webhook wh-9 at company 1.","status":404,"field":"webhookId"}';
    const withSchema = remoteTool({ outputSchema: { type: 'object', required: ['webhook'], properties: { webhook: { type: 'object' } } } });
    expect(toolResult(answered(json, 'No webhook wh-9 at company 1.', true), withSchema)).toEqual({
      content: [{ type: 'text', text: 'No webhook wh-9 at company 1.' }],
      isError: true,
      _meta: { [errorMetaKey]: { code: 'WEBHOOK_API_404', status: 404, field: 'webhookId' } },
    });
  });

  it('shows the message of its JSON when the tool gave no text', () => {
    const json = '{"code":"CONFLICT","message":"already linked"}';
    expect(toolResult(answered(json, '', true), tool)).toEqual({
      content: [{ type: 'text', text: 'already linked' }],
      isError: true,
      _meta: { [errorMetaKey]: { code: 'CONFLICT' } },
    });
  });

  it('repeats in _meta only a few short plain values of a hostile failure, cleaned', () => {
    const hostile = {
      code: 'X\u001b[31m',
      nested: { deep: true },
      list: [1],
      long: 'y'.repeat(10_000),
      ...Object.fromEntries(Array.from({ length: 40 }, (_u, i) => [`k${i}`, i])),
    };
    const meta = errorOf(toolResult(answered(JSON.stringify(hostile), 'Failed.', true), tool)) as Record<string, unknown>;
    expect(meta.code).toBe('X[31m');
    expect(meta).not.toHaveProperty('nested');
    expect(meta).not.toHaveProperty('list');
    expect(String(meta.long).length).toBeLessThanOrEqual(256);
    expect(Object.keys(meta).length).toBeLessThanOrEqual(16);
  });

  it("keeps the tool's text when its structured part cannot be read", () => {
    expect(toolResult(answered('not json', 'The device is offline.', true), tool)).toEqual({
      content: [{ type: 'text', text: 'The device is offline.' }],
      isError: true,
    });
  });

  it('calls a failure with neither text nor readable JSON unreadable', () => {
    expect(errorOf(toolResult(answered('not json', '', true), tool))).toEqual({ code: 'UNREADABLE_RESULT' });
  });
});

describe('toolResult, checking what a service sends', () => {
  const withSchema = remoteTool({
    outputSchema: {
      type: 'object',
      required: ['webhook'],
      properties: { webhook: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
    },
  });

  it('shows a result that matches the output schema', () => {
    expect(toolResult(answered('{"webhook":{"id":"wh-1"}}'), withSchema)).toEqual({
      content: [{ type: 'text', text: '{"webhook":{"id":"wh-1"}}' }],
      structuredContent: { webhook: { id: 'wh-1' } },
    });
  });

  it('turns a success whose structured content violates the output schema into an error naming the service', () => {
    const result = toolResult(answered('{"webhook":{"id":7}}'), withSchema);

    expect(result.structuredContent).toBeUndefined();
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toEqual({ code: 'OFF_SCHEMA_RESULT' });
    expect(textOf(result)).toMatch(
      /^The service webhook-tools \(app webhook-tools\) answered the tool create_webhook with a result that does not match the tool's output schema \(.*id.*\)/,
    );
  });

  it("checks another app's patterns in linear time: a result made to backtrack for seconds is refused at once", () => {
    const hostile = remoteTool({ outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } });
    // Compiled on its first result; the check itself is timed.
    expect(toolResult(answered('{"s":"aaaa"}'), hostile).structuredContent).toEqual({ s: 'aaaa' });
    const started = performance.now();
    // 30 characters take JavaScript's engine tens of seconds (twice as long for each one more).
    const result = toolResult(answered(JSON.stringify({ s: `${'a'.repeat(30)}!` })), hostile);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(errorOf(result)).toEqual({ code: 'OFF_SCHEMA_RESULT' });
    expect(textOf(result)).toContain('(s: must match pattern "^(a+)+$".)');
  });

  it('refuses a result whose output schema cannot be used, rather than show it unchecked', () => {
    const result = toolResult(answered('{"a":1}'), remoteTool({ outputSchema: { type: 'object', $schema: 'https://example.com/not-a-dialect' } }));
    expect(errorOf(result)).toEqual({ code: 'OFF_SCHEMA_RESULT' });
  });

  it('cleans text of C0 and C1 controls (but tab and newline) and of text-direction controls', () => {
    const hostile = 'Done\u001b[2J\u0000 \u0085safe\u202Eetirw\u2066x\u2069\tcol\r\nnext\u0007';
    expect(textOf(toolResult(answered('{"ok":true}', hostile), tool))).toBe('Done[2J safeetirwx\tcol\nnext');
    expect(textOf(toolResult(answered('{"note":"a\u202Eb"}'), tool))).toBe('{"note":"ab"}');
    expect(textOf(toolResult(answered('{}', 'Refused\u001b[0m \u202Eok', true), tool))).toBe('Refused[0m ok');
  });

  it('refuses a result over the size limit as an error naming the limit', () => {
    const result = toolResult(answered(JSON.stringify({ blob: 'x'.repeat(2_000) })), tool, { maxResultBytes: 1_024 });
    expect(errorOf(result)).toEqual({ code: 'RESULT_TOO_LARGE' });
    expect(textOf(result)).toContain('larger than the gateway passes on (1024 bytes, MCP_MAX_TOOL_RESULT_BYTES)');
    expect(errorOf(toolResult(refused(status.RESOURCE_EXHAUSTED, answerTooLarge), tool))).toEqual({ code: 'RESULT_TOO_LARGE' });
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
      'Received message larger than max (5242880 vs. 1048576)',
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
      isError: true,
      _meta: { [errorMetaKey]: { code } },
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
      isError: true,
      _meta: { [errorMetaKey]: { code: 'NO_DELEGATED_TOKEN', reason: 'EXCHANGE_DISABLED' } },
    });
  });

  it('passes the reason the platform gave', () => {
    const error = new DelegationError('ACTOR_REFUSED', { reason: "client legacy-sync: the actor's client legacy-sync is linked to no app" });
    expect(textOf(delegationFailure(error, tool))).toContain('legacy-sync is linked to no app');
  });

  it('calls a PlatformError an outage, never the caller’s fault', () => {
    const result = delegationFailure(new PlatformError('PLATFORM_UNAVAILABLE'), tool);
    expect(errorOf(result)).toEqual({ code: 'NO_DELEGATED_TOKEN', reason: 'PLATFORM_UNAVAILABLE' });
    expect(textOf(result)).toContain('This is an outage, not a problem with your request');
  });

  it('shows nothing of an unexpected error', () => {
    const result = delegationFailure(new Error('secret internals at /srv/gateway.ts:1'), tool);
    expect(errorOf(result)).toEqual({ code: 'NO_DELEGATED_TOKEN', reason: 'UNEXPECTED' });
    expect(textOf(result)).not.toContain('internals');
  });
});
