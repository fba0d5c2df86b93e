// content-blocks.ts and shown-text.ts: a tool service's blocks as MCP content, and the cleaning of
// every text shown on the way.
import type { Annotations__Output, ContentBlock__Output } from '@platform/proto';
import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { contentBytes, mcpContentOf, UnshowableBlock } from './content-blocks.ts';
import { hasUnshowable, ShownKeyCollision, shownJson, shownText } from './shown-text.ts';

const hi = Buffer.from('hi!');

const text = (value: string, annotations: Annotations__Output | null = null): ContentBlock__Output => ({ block: 'text', text: value, annotations });
const media = (kind: 'image' | 'audio', data: Buffer, mimeType: string, annotations: Annotations__Output | null = null): ContentBlock__Output => ({
  block: kind,
  [kind]: { data, mimeType },
  annotations,
});
const link = (fields: Partial<NonNullable<ContentBlock__Output['resourceLink']>> = {}): ContentBlock__Output => ({
  block: 'resourceLink',
  resourceLink: { uri: 'https://files.example/report.pdf', name: 'report.pdf', title: '', description: '', mimeType: '', size: '0', ...fields },
  annotations: null,
});
const embedded = (resource: NonNullable<ContentBlock__Output['resource']>): ContentBlock__Output => ({ block: 'resource', resource, annotations: null });
const annotations = (fields: Partial<Annotations__Output> = {}): Annotations__Output => ({ audience: [], lastModified: '', ...fields });

/** The UnshowableBlock message for `blocks`; fails the test when they are shown. */
const refusal = (blocks: ContentBlock__Output[]): string => thrownBy(() => mcpContentOf(blocks), UnshowableBlock).message;

describe('mcpContentOf maps each proto block to its MCP block', () => {
  it('maps text, cleaned to show', () => {
    expect(mcpContentOf([text('Three\u0007 webhooks\u202e\r\nfound\u2028.')])).toEqual([{ type: 'text', text: 'Three webhooks\nfound\n.' }]);
  });

  it.each(['image', 'audio'] as const)('maps %s with its bytes as base64', (kind) => {
    expect(mcpContentOf([media(kind, hi, `${kind}/x-test`)])).toEqual([{ type: kind, data: 'aGkh', mimeType: `${kind}/x-test` }]);
  });

  it('maps a resource link with every field, its size as a number', () => {
    expect(mcpContentOf([link({ title: 'The report', description: 'Last month', mimeType: 'application/pdf', size: '2048' })])).toEqual([
      {
        type: 'resource_link',
        uri: 'https://files.example/report.pdf',
        name: 'report.pdf',
        title: 'The report',
        description: 'Last month',
        mimeType: 'application/pdf',
        size: 2048,
      },
    ]);
  });

  it('leaves out the empty fields of a resource link, and a size of 0 or beyond a safe integer', () => {
    expect(mcpContentOf([link()])).toEqual([{ type: 'resource_link', uri: 'https://files.example/report.pdf', name: 'report.pdf' }]);
    expect(mcpContentOf([link({ size: '18446744073709551615' })])[0]).not.toHaveProperty('size');
  });

  it('cleans the name, title and description of a resource link', () => {
    expect(mcpContentOf([link({ name: 're\u0007port', title: 'T\u202eitle', description: 'D\u0000esc' })])[0]).toMatchObject({
      name: 'report',
      title: 'Title',
      description: 'Desc',
    });
  });

  it('maps an embedded text resource, cleaned', () => {
    expect(mcpContentOf([embedded({ uri: 'file:///notes.md', mimeType: 'text/markdown', contents: 'text', text: '# Notes\u001b[2J' })])).toEqual([
      { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes[2J' } },
    ]);
  });

  it('maps an embedded blob resource with its bytes as base64, without an empty MIME type', () => {
    expect(mcpContentOf([embedded({ uri: 'file:///blob.bin', mimeType: '', contents: 'blob', blob: Buffer.from([0xff, 0x00, 0x10]) })])).toEqual([
      { type: 'resource', resource: { uri: 'file:///blob.bin', blob: '/wAQ' } },
    ]);
  });

  it('keeps the blocks in their order', () => {
    expect(mcpContentOf([text('a'), media('image', hi, 'image/png'), text('b')]).map((block) => block.type)).toEqual(['text', 'image', 'text']);
  });

  it('maps every annotation', () => {
    const given = annotations({ audience: ['user', 'assistant'], priority: 0.5, lastModified: '2026-03-01T10:00:00Z' });
    expect(mcpContentOf([text('x', given)])).toEqual([
      { type: 'text', text: 'x', annotations: { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2026-03-01T10:00:00Z' } },
    ]);
  });

  it('leaves out annotations that say nothing, and the parts of them left empty', () => {
    expect(mcpContentOf([text('x', annotations())])).toEqual([{ type: 'text', text: 'x' }]);
    expect(mcpContentOf([media('image', hi, 'image/png', annotations({ priority: 0 }))])).toEqual([
      { type: 'image', data: 'aGkh', mimeType: 'image/png', annotations: { priority: 0 } },
    ]);
  });
});

describe('mcpContentOf refuses a block it cannot show, naming it', () => {
  it.each(['image', 'audio'] as const)('refuses %s without data', (kind) => {
    expect(refusal([text('ok'), media(kind, Buffer.alloc(0), `${kind}/png`)])).toBe(`content block 2 (${kind}) has no data`);
  });

  it.each([
    ['a CR LF header injection', 'image/png\r\nX-Injected: yes'],
    ['a trailing line feed', 'image/png\n'],
    ['no subtype', 'image'],
    ['nothing', ''],
    ['a space', 'image /png'],
  ])('refuses a MIME type with %s', (_case, mimeType) => {
    expect(refusal([media('image', hi, mimeType)])).toBe('content block 1 has no valid MIME type');
  });

  it.each([
    ['image', 'text/html', 'content block 1 (image) has the MIME type text/html, which is not an image type'],
    ['image', 'application/x-msdownload', 'content block 1 (image) has the MIME type application/x-msdownload, which is not an image type'],
    ['audio', 'image/png', 'content block 1 (audio) has the MIME type image/png, which is not an audio type'],
    ['image', 'image/svg+xml', 'content block 1 (image) is SVG, which can carry script; send it as PNG, or as a resource'],
    ['image', 'IMAGE/SVG+XML; charset=utf-8', 'content block 1 (image) is SVG, which can carry script; send it as PNG, or as a resource'],
  ] as const)('refuses an %s block whose MIME type is %s', (kind, mimeType, problem) => {
    expect(refusal([media(kind, hi, mimeType)])).toBe(problem);
  });

  it('takes an image or audio MIME type in any case, with parameters', () => {
    expect(
      mcpContentOf([media('image', hi, 'Image/PNG'), media('audio', hi, 'audio/ogg; codecs=opus')]).map((block) => (block as { mimeType: string }).mimeType),
    ).toEqual(['Image/PNG', 'audio/ogg; codecs=opus']);
  });

  it('refuses a bad MIME type on a link and on an embedded resource', () => {
    expect(refusal([link({ mimeType: 'text/plain\r\n' })])).toBe('content block 1 has no valid MIME type');
    expect(refusal([embedded({ uri: 'file:///a', mimeType: 'text', contents: 'text', text: 'x' })])).toBe('content block 1 has no valid MIME type');
  });

  it.each([
    ['javascript:alert(1)', 'javascript'],
    ['JavaScript:alert(1)', 'javascript'],
    ['data:text/html,<script>alert(1)</script>', 'data'],
    ['vbscript:msgbox(1)', 'vbscript'],
    ['blob:https://files.example/6f1c1a7e', 'blob'],
  ])('refuses the scripting URI %s', (uri, scheme) => {
    expect(refusal([link({ uri })])).toBe(`content block 1 has a ${scheme}: URI`);
    expect(refusal([embedded({ uri, mimeType: '', contents: 'text', text: 'x' })])).toBe(`content block 1 has a ${scheme}: URI`);
  });

  it.each([
    ['with a space', 'https://files.example/my report.pdf'],
    ['with a tab', 'https://files.example/\treport.pdf'],
    ['with a leading space', ' https://files.example/report.pdf'],
    ['with a control character', 'https://files.example/\u0000report.pdf'],
    ['with a direction override', 'https://files.example/\u202efdp.exe'],
    ['relative', 'reports/march.pdf'],
    ['empty', ''],
    ['longer than 8192 characters', `https://files.example/${'a'.repeat(8192)}`],
  ])('refuses a URI %s', (_case, uri) => {
    expect(refusal([link({ uri })])).toBe('content block 1 has no valid URI');
  });

  it.each([
    ['a zero-width space', 'https://files.example/\u200breport.pdf'],
    ['a word joiner', 'https://files.example/re\u2060port.pdf'],
    ['a soft hyphen in the host', 'https://pay\u00adpal.example/'],
  ])('refuses a URI hiding %s, as a question link with it is refused', (_case, uri) => {
    // "a resource's URI that parses and shows nothing hidden": an invisible format character hides.
    expect(refusal([link({ uri })])).toBe('content block 1 has no valid URI');
  });

  it('refuses a resource link without a name once cleaned', () => {
    expect(refusal([link({ name: '\u0007\u202e' })])).toBe('content block 1 (resource link) has no name');
  });

  it('refuses an audience other than user and assistant', () => {
    expect(refusal([text('x', annotations({ audience: ['user', 'robot'] }))])).toBe('content block 1 names an audience other than user and assistant');
  });

  it.each([-0.1, 1.1, Number.NaN])('refuses the priority %d', (priority) => {
    expect(refusal([text('x', annotations({ priority }))])).toBe('content block 1 has a priority outside 0 to 1');
  });

  it('refuses a lastModified that is no date', () => {
    expect(refusal([text('x', annotations({ lastModified: 'last week' }))])).toBe('content block 1 has a lastModified that is no date');
  });

  it('refuses a block of no kind, and an empty link or resource', () => {
    expect(refusal([{ annotations: null }])).toBe('content block 1 is of no kind MCP knows');
    expect(refusal([{ block: 'resourceLink', resourceLink: null, annotations: null }])).toBe('content block 1 is empty');
    expect(refusal([{ block: 'resource', resource: null, annotations: null }])).toBe('content block 1 is empty');
  });

  it('refuses the whole content for one bad block, whatever its place', () => {
    expect(refusal([text('a'), text('b'), link({ uri: 'javascript:x' })])).toBe('content block 3 has a javascript: URI');
  });
});

describe('contentBytes', () => {
  it('counts media and blobs as their base64, text as its length, links by their fields', () => {
    expect(contentBytes([media('image', Buffer.alloc(4), 'image/png')])).toBe(8);
    expect(contentBytes([media('audio', Buffer.alloc(3), 'audio/wav')])).toBe(4);
    expect(contentBytes([text('abc')])).toBe(3);
    expect(contentBytes([embedded({ uri: 'file:///a', mimeType: '', contents: 'blob', blob: Buffer.alloc(5) })])).toBe('file:///a'.length + 8);
    expect(contentBytes([embedded({ uri: 'file:///a', mimeType: '', contents: 'text', text: 'hello' })])).toBe('file:///a'.length + 5);
    expect(contentBytes([link({ description: 'desc' })])).toBe('https://files.example/report.pdf'.length + 'report.pdf'.length + 4);
  });

  it('adds the blocks up, and counts nothing for none', () => {
    expect(contentBytes([text('abc'), media('image', Buffer.alloc(6), 'image/png')])).toBe(3 + 8);
    expect(contentBytes([])).toBe(0);
  });
});

describe('shownText and hasUnshowable', () => {
  it('removes C0 and C1 controls but tab and newline, and the direction controls', () => {
    expect(shownText('a\u0000b\u0007c\u001bd\u007fe\u0085f\u009fg\th\ni')).toBe('abcdefg\th\ni');
    expect(shownText('\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069x')).toBe('x');
  });

  it('turns CR LF and the line and paragraph separators into newlines, and drops a lone CR', () => {
    expect(shownText('a\r\nb\u2028c\u2029d\re')).toBe('a\nb\nc\nde');
  });

  it('leaves everything else as it is', () => {
    const text = 'Ünïcödé 🚀 "quotes" <b>tags</b> \\ 你好';
    expect(shownText(text)).toBe(text);
    expect(hasUnshowable(text)).toBe(false);
  });

  it('tells whether a text holds anything shownText would change', () => {
    expect(hasUnshowable('tab\tand\nnewline')).toBe(false);
    for (const text of ['\u0007', 'a\r\nb', 'a\u2028b', '\u200f', '\u009b']) expect(hasUnshowable(text)).toBe(true);
  });

  it('answers the same when asked twice in a row (no state left in the pattern)', () => {
    expect(hasUnshowable('x\u0007')).toBe(true);
    expect(hasUnshowable('x\u0007')).toBe(true);
    expect(hasUnshowable('clean')).toBe(false);
  });
});

describe('shownJson', () => {
  it('cleans every string, keys included, at any depth', () => {
    expect(shownJson({ 'ke\u0007y': ['va\u202elue', { 'in\u0000ner': 'de\u001bep', n: 1, t: true, z: null }] })).toEqual({
      key: ['value', { inner: 'deep', n: 1, t: true, z: null }],
    });
  });

  it('passes numbers, booleans and null through, and cleans a bare string', () => {
    expect(shownJson(1.5)).toBe(1.5);
    expect(shownJson(false)).toBe(false);
    expect(shownJson(null)).toBeNull();
    expect(shownJson('a\u0007')).toBe('a');
  });

  it('keeps "__proto__" as an own key, not as the prototype', () => {
    const shown = shownJson(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.hasOwn(shown, '__proto__')).toBe(true);
    expect(Object.keys(shown)).toEqual(['__proto__', 'a']);
    expect((shown as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(shown)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('keeps "__proto__" an own key when it appears only once cleaned', () => {
    const shown = shownJson(JSON.parse('{"__pro\\u0007to__":{"polluted":true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.hasOwn(shown, '__proto__')).toBe(true);
  });

  it('throws ShownKeyCollision for keys that collide once cleaned, rather than drop a value', () => {
    expect(() => shownJson(JSON.parse('{"a\\u0007":1,"a":2}'))).toThrow(ShownKeyCollision);
    expect(() => shownJson({ nested: [{ 'b\u202e': 1, b: 2 }] })).toThrow(new ShownKeyCollision('two keys read as "b" once cleaned'));
  });

  it('does not change what it was given', () => {
    const given = { 'a\u0007': ['b\u0007'] };
    shownJson(given);
    expect(given).toEqual({ 'a\u0007': ['b\u0007'] });
  });
});
