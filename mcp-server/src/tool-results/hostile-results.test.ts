// A tool service answering with hostile text: every character the text-safety module keeps out is
// cleaned from the result's text blocks and from its structured content alike (keys, values, nested
// values), so no path of a result shows what another path cleans.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { unsafeCharacterCases } from '@platform/devtools/unsafe-text';
import { isSafeText, shownText } from '@platform/tool-sdk/internal';
import { describe, expect, it } from 'vitest';
import { remoteTool } from '../../test/fixtures/remote-tool.ts';
import { toolResult, type FinishedAnswer } from './tool-result.ts';

const tool = remoteTool({
  exposedName: 'list_webhooks',
  name: 'list_webhooks',
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
});

const answered = (structured: unknown, text: string): FinishedAnswer => ({
  ok: true,
  result: { content: text === '' ? [] : [{ block: 'text', text, annotations: null }], structuredContentJson: JSON.stringify(structured), isError: false },
});

/** Every string of a JSON value, object keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
}

const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('a tool answering hostile text and structured content', () => {
  it.each(unsafeCharacterCases)('cleans %s from the text and from every string of the structured content the same way', (_, character) => {
    const hostile = `name${character}end`;
    const result = toolResult(answered({ [`key${character}`]: hostile, nested: { list: [hostile, 7] } }, hostile), tool);

    expect(result.isError).toBeUndefined();
    const shown = shownText(hostile);
    expect(textOf(result)).toBe(shown);
    expect(result.structuredContent).toEqual({ [shownText(`key${character}`)]: shown, nested: { list: [shown, 7] } });
    for (const text of [textOf(result), ...stringsOf(result.structuredContent)]) expect(isSafeText(text)).toBe(true);
  });

  it.each(unsafeCharacterCases)('cleans %s from the text it makes of structured content when the tool sent no text', (_, character) => {
    const result = toolResult(answered({ note: `a${character}b` }, ''), tool);

    expect(isSafeText(textOf(result))).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });
});
