// What a tool may answer beyond a JSON object: MCP content blocks (text, images, audio, links to
// resources, embedded resources), structured content beside them, and the error flag, built with
// `toolResult` and checked where the tool builds it, so a bad block fails at its own line. Media and
// blobs are given as base64 (as MCP writes them) or as bytes, and travel to the gateway as bytes.
import { z } from 'zod';
import type { ContentBlock, ToolResult as ToolResultMessage } from '@platform/proto';

/** MCP annotations of a content block: hints for the client. */
export interface ContentAnnotations {
  /** Who the block is for. */
  readonly audience?: readonly ('user' | 'assistant')[];
  /** How important it is, 0 (least) to 1 (most). */
  readonly priority?: number;
  /** When it last changed, ISO 8601. */
  readonly lastModified?: string;
}

/** Bytes as MCP writes them (base64) or as they are. */
export type Bytes = string | Uint8Array;

/** One MCP content block, as a tool writes it (the MCP SDK's shapes, bytes allowed for base64). */
export type ToolContent =
  | { readonly type: 'text'; readonly text: string; readonly annotations?: ContentAnnotations }
  | { readonly type: 'image' | 'audio'; readonly data: Bytes; readonly mimeType: string; readonly annotations?: ContentAnnotations }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
      /** Its size in bytes. */
      readonly size?: number;
      readonly annotations?: ContentAnnotations;
    }
  | {
      readonly type: 'resource';
      readonly resource:
        | { readonly uri: string; readonly mimeType?: string; readonly text: string }
        | { readonly uri: string; readonly mimeType?: string; readonly blob: Bytes };
      readonly annotations?: ContentAnnotations;
    };

/** A tool's answer as MCP has it: content blocks, structured content beside them, and whether it reports a failure. */
export interface ToolResultSpec {
  /** The content blocks: text, image, audio, resource links, embedded resources. */
  readonly content: readonly ToolContent[];
  /** A JSON object for programs (MCP `structuredContent`); checked against the tool's output schema when it has one. */
  readonly structuredContent?: Record<string, unknown>;
  /** True when the tool ran and reports a failure the agent should read. Prefer throwing a ToolError for that. */
  readonly isError?: boolean;
}

const brand = Symbol('platform.toolResult');

/** A checked answer made by `toolResult`; a handler returns it instead of a plain object. */
export interface ToolResultValue {
  /** The result as the SDK sends it; only `toolResult` makes one. */
  readonly [brand]: ToolResultMessage;
  /** The structured content, to check against the tool's output schema. */
  readonly structuredContent: Record<string, unknown> | undefined;
}

/** True for what `toolResult` made. */
export function isToolResultValue(value: unknown): value is ToolResultValue {
  return typeof value === 'object' && value !== null && brand in value;
}

/** Base64 as RFC 4648 writes it: padded, no line breaks. */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** `type/subtype` with RFC 6838's characters, parameters allowed. */
const mimeType = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:;[\x20-\x7e]{0,256})?$/;

const bytes = z.union([z.string().regex(base64, 'must be base64 (RFC 4648, padded)'), z.instanceof(Uint8Array)]);
const annotations = z
  .strictObject({
    audience: z.array(z.enum(['user', 'assistant'])).max(2),
    priority: z.number().min(0).max(1),
    lastModified: z.iso.datetime({ offset: true }),
  })
  .partial();
const uri = z
  .string()
  .min(1)
  .max(8192)
  .refine((value) => URL.canParse(value), 'must be an absolute URI');
const media = z
  .strictObject({
    type: z.enum(['image', 'audio']),
    data: bytes,
    mimeType: z.string().regex(mimeType, 'must be a MIME type'),
    annotations: annotations.optional(),
  })
  // As the gateway shows them: an image's type is an image type, never SVG (a document that can carry script); audio's an audio type.
  .refine((block) => (block.mimeType.split(';', 1)[0] ?? '').trim().toLowerCase().startsWith(`${block.type}/`), {
    path: ['mimeType'],
    message: 'must be a MIME type of the block’s kind (image/..., audio/...)',
  })
  .refine((block) => (block.mimeType.split(';', 1)[0] ?? '').trim().toLowerCase() !== 'image/svg+xml', {
    path: ['mimeType'],
    message: 'must not be SVG, which can carry script (send PNG, or the SVG as a resource)',
  });
const contentSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string(), annotations: annotations.optional() }),
  media,
  z.strictObject({
    type: z.literal('resource_link'),
    uri,
    name: z.string().min(1),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().regex(mimeType, 'must be a MIME type').optional(),
    size: z.number().int().nonnegative().optional(),
    annotations: annotations.optional(),
  }),
  z.strictObject({
    type: z.literal('resource'),
    resource: z.union([
      z.strictObject({ uri, mimeType: z.string().regex(mimeType, 'must be a MIME type').optional(), text: z.string() }),
      z.strictObject({ uri, mimeType: z.string().regex(mimeType, 'must be a MIME type').optional(), blob: bytes }),
    ]),
    annotations: annotations.optional(),
  }),
]);
const resultSchema = z.strictObject({
  content: z.array(contentSchema).max(1_000),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

const toBytes = (value: Bytes): Buffer =>
  typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

function annotationsOf(given: ContentAnnotations | undefined): ContentBlock['annotations'] {
  if (given === undefined) return undefined;
  return {
    audience: [...(given.audience ?? [])],
    ...(given.priority !== undefined && { priority: given.priority }),
    lastModified: given.lastModified ?? '',
  };
}

function blockOf(block: ToolContent): ContentBlock {
  const annotated = block.annotations === undefined ? {} : { annotations: annotationsOf(block.annotations) };
  switch (block.type) {
    case 'text':
      return { text: block.text, ...annotated };
    case 'image':
    case 'audio':
      return { [block.type]: { data: toBytes(block.data), mimeType: block.mimeType }, ...annotated };
    case 'resource_link':
      return {
        resourceLink: {
          uri: block.uri,
          name: block.name,
          title: block.title ?? '',
          description: block.description ?? '',
          mimeType: block.mimeType ?? '',
          size: String(block.size ?? 0),
        },
        ...annotated,
      };
    case 'resource': {
      const { resource } = block;
      const contents = 'text' in resource ? { text: resource.text } : { blob: toBytes(resource.blob) };
      return { resource: { uri: resource.uri, mimeType: resource.mimeType ?? '', ...contents }, ...annotated };
    }
  }
}

/** Where a problem is, `content.1.data`, and what it is. */
function describe(error: z.ZodError): string {
  const [issue] = error.issues;
  const path = issue?.path.length ? issue.path.map(String).join('.') : 'result';
  return `${path}: ${issue?.message ?? 'is not a tool result'}`;
}

/**
 * An answer of content blocks, for a handler to return (a plain object stays the way to answer with
 * structured content alone). Throws TypeError naming the block and field at fault.
 *
 * @example
 * ```ts
 * return toolResult({ content: [{ type: 'text', text: 'The chart:' }, { type: 'image', data: png, mimeType: 'image/png' }] });
 * ```
 */
export function toolResult(spec: ToolResultSpec): ToolResultValue {
  const parsed = resultSchema.safeParse(spec);
  if (!parsed.success) throw new TypeError(`toolResult: ${describe(parsed.error)}`);
  const { structuredContent, isError = false } = spec;
  const message: ToolResultMessage = {
    content: spec.content.map(blockOf),
    structuredContentJson: structuredContent === undefined ? '' : JSON.stringify(structuredContent),
    isError,
  };
  return Object.freeze({ [brand]: message, structuredContent });
}

/** The message a `toolResult` value travels as. */
export function resultMessageOf(value: ToolResultValue): ToolResultMessage {
  return value[brand];
}
