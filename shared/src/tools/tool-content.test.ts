import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { isToolResultValue, resultMessageOf, toolResult, type ToolContent, type ToolResultSpec } from './tool-content.ts';

/** "hi!" as MCP writes it, and as bytes. */
const hiBase64 = 'aGkh';
const hiBytes = Buffer.from('hi!');

/** The message `toolResult` makes of one block. */
const messageOf = (block: ToolContent, rest: Omit<ToolResultSpec, 'content'> = {}) => resultMessageOf(toolResult({ content: [block], ...rest }));

/** The TypeError `toolResult` throws for `spec` (given loosely, as a tool in plain JavaScript could). */
const refusal = (spec: unknown): string => thrownBy(() => toolResult(spec as ToolResultSpec), TypeError).message;

describe('toolResult for each MCP block kind', () => {
  it('makes a text block into the proto text block, without annotations when none are given', () => {
    const message = messageOf({ type: 'text', text: 'Three webhooks.' });
    expect(message).toEqual({ content: [{ text: 'Three webhooks.' }], structuredContentJson: '', isError: false });
    expect(message.content?.[0]).not.toHaveProperty('annotations');
  });

  it.each(['image', 'audio'] as const)('decodes the base64 of an %s block into its bytes', (type) => {
    expect(messageOf({ type, data: hiBase64, mimeType: `${type}/x-test` }).content).toEqual([{ [type]: { data: hiBytes, mimeType: `${type}/x-test` } }]);
  });

  it.each(['image', 'audio'] as const)('takes the bytes of an %s block as given, a view into a larger buffer included', (type) => {
    const larger = new Uint8Array([0, ...hiBytes, 0]);
    const message = messageOf({ type, data: larger.subarray(1, 4), mimeType: `${type}/x-raw` });
    const media = message.content?.[0]?.[type];
    expect(Buffer.from(media?.data as Uint8Array)).toEqual(hiBytes);
    expect(media?.mimeType).toBe(`${type}/x-raw`);
  });

  it('decodes an empty base64 string to no bytes', () => {
    expect(messageOf({ type: 'image', data: '', mimeType: 'image/png' }).content).toEqual([{ image: { data: Buffer.alloc(0), mimeType: 'image/png' } }]);
  });

  it('accepts a MIME type with parameters', () => {
    expect(messageOf({ type: 'audio', data: hiBase64, mimeType: 'audio/ogg; codecs=opus' }).content?.[0]?.audio?.mimeType).toBe('audio/ogg; codecs=opus');
  });

  it('makes a resource link with every field into the proto link, its size as a string', () => {
    const message = messageOf({
      type: 'resource_link',
      uri: 'https://files.example/report.pdf',
      name: 'report.pdf',
      title: 'The report',
      description: 'Last month',
      mimeType: 'application/pdf',
      size: 2_048,
    });
    expect(message.content).toEqual([
      {
        resourceLink: {
          uri: 'https://files.example/report.pdf',
          name: 'report.pdf',
          title: 'The report',
          description: 'Last month',
          mimeType: 'application/pdf',
          size: '2048',
        },
      },
    ]);
  });

  it('fills the optional fields of a resource link with the proto defaults', () => {
    expect(messageOf({ type: 'resource_link', uri: 'file:///var/log/device.log', name: 'device.log' }).content).toEqual([
      { resourceLink: { uri: 'file:///var/log/device.log', name: 'device.log', title: '', description: '', mimeType: '', size: '0' } },
    ]);
  });

  it('makes an embedded text resource into the proto resource with its text', () => {
    expect(messageOf({ type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes' } }).content).toEqual([
      { resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes' } },
    ]);
  });

  it('makes an embedded blob resource into the proto resource with its bytes, from base64 or bytes', () => {
    expect(messageOf({ type: 'resource', resource: { uri: 'file:///blob.bin', blob: hiBase64 } }).content).toEqual([
      { resource: { uri: 'file:///blob.bin', mimeType: '', blob: hiBytes } },
    ]);
    const fromBytes = messageOf({
      type: 'resource',
      resource: { uri: 'file:///blob.bin', mimeType: 'application/octet-stream', blob: new Uint8Array(hiBytes) },
    });
    expect(Buffer.from(fromBytes.content?.[0]?.resource?.blob as Uint8Array)).toEqual(hiBytes);
    expect(fromBytes.content?.[0]?.resource?.mimeType).toBe('application/octet-stream');
  });

  it('maps every annotation, and fills the ones not given with the proto defaults', () => {
    const full = messageOf({
      type: 'text',
      text: 'For the person.',
      annotations: { audience: ['user', 'assistant'], priority: 0.25, lastModified: '2026-03-01T10:00:00+01:00' },
    });
    expect(full.content).toEqual([
      { text: 'For the person.', annotations: { audience: ['user', 'assistant'], priority: 0.25, lastModified: '2026-03-01T10:00:00+01:00' } },
    ]);
    const audienceOnly = messageOf({ type: 'image', data: hiBase64, mimeType: 'image/png', annotations: { audience: ['assistant'] } });
    expect(audienceOnly.content?.[0]?.annotations).toEqual({ audience: ['assistant'], lastModified: '' });
    expect(audienceOnly.content?.[0]?.annotations).not.toHaveProperty('priority');
  });

  it.each([0, 1])('accepts the priority %d at the edge of 0..1', (priority) => {
    expect(messageOf({ type: 'text', text: 'x', annotations: { priority } }).content?.[0]?.annotations?.priority).toBe(priority);
  });

  it('carries the structured content as JSON and the error flag', () => {
    expect(messageOf({ type: 'text', text: 'Not found.' }, { structuredContent: { id: 'wh-1', nested: { n: 7 } }, isError: true })).toEqual({
      content: [{ text: 'Not found.' }],
      structuredContentJson: '{"id":"wh-1","nested":{"n":7}}',
      isError: true,
    });
  });

  it('keeps several blocks in their order, and accepts exactly 1,000', () => {
    const content: ToolContent[] = [
      { type: 'text', text: 'first' },
      { type: 'image', data: hiBase64, mimeType: 'image/png' },
      { type: 'text', text: 'last' },
    ];
    expect(resultMessageOf(toolResult({ content })).content?.map((block) => Object.keys(block)[0])).toEqual(['text', 'image', 'text']);
    const many = Array.from({ length: 1_000 }, (_, index): ToolContent => ({ type: 'text', text: String(index) }));
    expect(resultMessageOf(toolResult({ content: many })).content).toHaveLength(1_000);
  });

  it('makes a frozen value that isToolResultValue knows, holding its structured content for the output check', () => {
    const value = toolResult({ content: [], structuredContent: { ok: true } });
    expect(isToolResultValue(value)).toBe(true);
    expect(Object.isFrozen(value)).toBe(true);
    expect(value.structuredContent).toEqual({ ok: true });
    expect(isToolResultValue({ content: [], structuredContent: { ok: true } })).toBe(false);
    expect(isToolResultValue(null)).toBe(false);
  });
});

describe('toolResult refusals, naming the block and the field', () => {
  it.each([
    ['unpadded', 'aGk'],
    ['with a character outside the alphabet', 'aGk*'],
    ['URL-safe', 'a-_h'],
    ['with a line break', 'aGkh\naGkh'],
    ['with padding in the middle', 'aG==aGkh'],
  ])('refuses base64 %s', (_case, data) => {
    expect(
      refusal({
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', data, mimeType: 'image/png' },
        ],
      }),
    ).toBe('toolResult: content.1.data: must be base64 (RFC 4648, padded)');
  });

  it('refuses bad base64 in an embedded blob', () => {
    expect(refusal({ content: [{ type: 'resource', resource: { uri: 'file:///a', blob: 'a=b=' } }] })).toBe(
      'toolResult: content.0.resource.blob: must be base64 (RFC 4648, padded)',
    );
  });

  it.each([
    ['a header injected after CR LF', 'image/png\r\nX-Injected: yes'],
    ['a trailing line feed', 'image/png\n'],
    ['a line feed in its parameters', 'image/png; a=b\nc'],
    ['no subtype', 'image'],
    ['a space in the type', 'ima ge/png'],
    ['nothing', ''],
  ])('refuses a MIME type with %s', (_case, mimeType) => {
    expect(refusal({ content: [{ type: 'audio', data: hiBase64, mimeType }] })).toBe('toolResult: content.0.mimeType: must be a MIME type');
  });

  it.each([
    ['image', 'text/html', 'must be a MIME type of the block’s kind (image/..., audio/...)'],
    ['audio', 'image/png', 'must be a MIME type of the block’s kind (image/..., audio/...)'],
    ['image', 'Image/SVG+XML; charset=utf-8', 'must not be SVG, which can carry script (send PNG, or the SVG as a resource)'],
  ] as const)('refuses an %s block whose MIME type is %s, as the gateway would', (type, mimeType, message) => {
    expect(refusal({ content: [{ type, data: hiBase64, mimeType }] })).toBe(`toolResult: content.0.mimeType: ${message}`);
  });

  it('refuses a bad MIME type on a resource link and an embedded resource', () => {
    expect(refusal({ content: [{ type: 'resource_link', uri: 'https://a.example/', name: 'a', mimeType: 'text/plain\r\n' }] })).toBe(
      'toolResult: content.0.mimeType: must be a MIME type',
    );
    expect(refusal({ content: [{ type: 'resource', resource: { uri: 'file:///a', mimeType: 'text\nplain', text: 'x' } }] })).toBe(
      'toolResult: content.0.resource.mimeType: must be a MIME type',
    );
  });

  it.each(['reports/march.pdf', '/absolute/path/only', '', '//host.example/no-scheme'])('refuses the relative URI %j', (uri) => {
    expect(refusal({ content: [{ type: 'resource_link', uri, name: 'march.pdf' }] })).toMatch(/^toolResult: content\.0\.uri: /);
    expect(refusal({ content: [{ type: 'resource', resource: { uri, text: 'x' } }] })).toMatch(/^toolResult: content\.0\.resource\.uri: /);
  });

  it('refuses a resource link without a name', () => {
    expect(refusal({ content: [{ type: 'resource_link', uri: 'https://a.example/', name: '' }] })).toMatch(/^toolResult: content\.0\.name: /);
  });

  it('refuses an unknown block type, naming its type', () => {
    expect(refusal({ content: [{ type: 'video', data: hiBase64, mimeType: 'video/mp4' }] })).toMatch(/^toolResult: content\.0\.type: /);
  });

  it('refuses a block with a key MCP does not define, naming it', () => {
    expect(refusal({ content: [{ type: 'text', text: 'x', html: '<b>x</b>' }] })).toBe('toolResult: content.0: Unrecognized key: "html"');
    expect(refusal({ content: [{ type: 'text', text: 'x', annotations: { color: 'red' } }] })).toBe(
      'toolResult: content.0.annotations: Unrecognized key: "color"',
    );
  });

  it('refuses a result with a key of its own', () => {
    expect(refusal({ content: [], text: 'x' })).toBe('toolResult: result: Unrecognized key: "text"');
  });

  it.each([-0.01, 1.01, Number.NaN])('refuses the priority %d outside 0..1', (priority) => {
    expect(refusal({ content: [{ type: 'text', text: 'x', annotations: { priority } }] })).toMatch(/^toolResult: content\.0\.annotations\.priority: /);
  });

  it('refuses an audience other than user and assistant, and a lastModified that is not ISO 8601', () => {
    expect(refusal({ content: [{ type: 'text', text: 'x', annotations: { audience: ['robot'] } }] })).toMatch(
      /^toolResult: content\.0\.annotations\.audience\.0: /,
    );
    expect(refusal({ content: [{ type: 'text', text: 'x', annotations: { lastModified: 'yesterday' } }] })).toMatch(
      /^toolResult: content\.0\.annotations\.lastModified: /,
    );
  });

  it('refuses a negative or fractional size', () => {
    expect(refusal({ content: [{ type: 'resource_link', uri: 'https://a.example/', name: 'a', size: -1 }] })).toMatch(/^toolResult: content\.0\.size: /);
    expect(refusal({ content: [{ type: 'resource_link', uri: 'https://a.example/', name: 'a', size: 1.5 }] })).toMatch(/^toolResult: content\.0\.size: /);
  });

  it('refuses more than 1,000 blocks', () => {
    const content = Array.from({ length: 1_001 }, () => ({ type: 'text', text: 'x' }));
    expect(refusal({ content })).toMatch(/^toolResult: content: .*1000/);
  });

  it('refuses structured content that is not an object, and an error flag that is not a boolean', () => {
    expect(refusal({ content: [], structuredContent: [1, 2] })).toMatch(/^toolResult: structuredContent: /);
    expect(refusal({ content: [], isError: 'yes' })).toMatch(/^toolResult: isError: /);
  });
});
