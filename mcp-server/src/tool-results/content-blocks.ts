// A tool service's content blocks as MCP content: text cleaned to show (shown-text.ts), images and
// audio and blobs encoded as base64 from the bytes the service sent, a MIME type that is one, a
// resource's URI that parses and shows nothing hidden, annotations within MCP's ranges. A block that
// breaks a rule makes the whole result unreadable (never a result shown in part), naming the block.
import type { ContentBlock } from '@modelcontextprotocol/server';
import type { Annotations__Output, ContentBlock__Output } from '@platform/proto';
import { hasHiddenCharacters, shownText } from './shown-text.ts';

/** A MIME type, `type/subtype` with RFC 6838's characters, parameters allowed. */
const mimeType = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:;[\x20-\x7e]{0,256})?$/;

/** Why a block cannot be shown. */
export class UnshowableBlock extends Error {
  override readonly name = 'UnshowableBlock';
  readonly code = 'UNSHOWABLE_BLOCK';
}

/** Bytes the client receives for `bytes` of data, as base64. */
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

function checkedMimeType(value: string, where: string): string {
  if (!mimeType.test(value)) throw new UnshowableBlock(`${where} has no valid MIME type`);
  return value;
}

/**
 * An image's or audio's MIME type, of its own kind: a client renders an image block as an image,
 * so `text/html` there is a page passed off as one. SVG is refused too: it is a document that can
 * carry script, where a client may draw it inline.
 */
function checkedMediaType(kind: 'image' | 'audio', value: string, where: string): string {
  const checked = checkedMimeType(value, where);
  const essence = (checked.split(';', 1)[0] ?? '').trim().toLowerCase();
  if (!essence.startsWith(`${kind}/`)) throw new UnshowableBlock(`${where} (${kind}) has the MIME type ${essence}, which is not an ${kind} type`);
  if (essence === 'image/svg+xml') throw new UnshowableBlock(`${where} (image) is SVG, which can carry script; send it as PNG, or as a resource`);
  return checked;
}

/** Schemes that run code or smuggle content where a client renders a link. */
const scriptingSchemes = new Set(['javascript:', 'vbscript:', 'data:', 'blob:']);

function checkedUri(value: string, where: string): string {
  if (value === '' || value.length > 8192 || hasHiddenCharacters(value) || !URL.canParse(value)) {
    throw new UnshowableBlock(`${where} has no valid URI`);
  }
  if (scriptingSchemes.has(new URL(value).protocol)) throw new UnshowableBlock(`${where} has a ${new URL(value).protocol.slice(0, -1)}: URI`);
  return value;
}

function annotationsOf(given: Annotations__Output | null | undefined, where: string): ContentBlock['annotations'] {
  if (!given) return undefined;
  const audience = given.audience.filter((role) => role === 'user' || role === 'assistant');
  if (audience.length !== given.audience.length) throw new UnshowableBlock(`${where} names an audience other than user and assistant`);
  const priority = given.priority;
  if (priority !== undefined && !(priority >= 0 && priority <= 1)) throw new UnshowableBlock(`${where} has a priority outside 0 to 1`);
  const lastModified = given.lastModified;
  if (lastModified !== '' && Number.isNaN(Date.parse(lastModified))) throw new UnshowableBlock(`${where} has a lastModified that is no date`);
  const shown = {
    ...(audience.length > 0 && { audience }),
    ...(priority !== undefined && { priority }),
    ...(lastModified !== '' && { lastModified }),
  };
  return Object.keys(shown).length === 0 ? undefined : shown;
}

/** One block as MCP content. */
function blockOf(block: ContentBlock__Output, index: number): ContentBlock {
  const where = `content block ${index + 1}`;
  const annotations = annotationsOf(block.annotations, where);
  const annotated = annotations === undefined ? {} : { annotations };
  switch (block.block) {
    case 'text': {
      const text = shownText(block.text ?? '');
      return { type: 'text', text, ...annotated };
    }
    case 'image':
    case 'audio': {
      const media = block[block.block];
      if (!media || media.data.length === 0) throw new UnshowableBlock(`${where} (${block.block}) has no data`);
      const data = media.data.toString('base64');
      return { type: block.block, data, mimeType: checkedMediaType(block.block, media.mimeType, where), ...annotated };
    }
    case 'resourceLink': {
      const link = block.resourceLink;
      if (!link) throw new UnshowableBlock(`${where} is empty`);
      const name = shownText(link.name);
      if (name === '') throw new UnshowableBlock(`${where} (resource link) has no name`);
      const size = Number(link.size);
      return {
        type: 'resource_link',
        uri: checkedUri(link.uri, where),
        name,
        ...(link.title !== '' && { title: shownText(link.title) }),
        ...(link.description !== '' && { description: shownText(link.description) }),
        ...(link.mimeType !== '' && { mimeType: checkedMimeType(link.mimeType, where) }),
        ...(size > 0 && Number.isSafeInteger(size) && { size }),
        ...annotated,
      };
    }
    case 'resource': {
      const resource = block.resource;
      if (!resource) throw new UnshowableBlock(`${where} is empty`);
      const uri = checkedUri(resource.uri, where);
      const mime = resource.mimeType === '' ? {} : { mimeType: checkedMimeType(resource.mimeType, where) };
      if (resource.contents === 'blob') {
        const blob = (resource.blob ?? Buffer.alloc(0)).toString('base64');
        return { type: 'resource', resource: { uri, ...mime, blob }, ...annotated };
      }
      const text = shownText(resource.text ?? '');
      return { type: 'resource', resource: { uri, ...mime, text }, ...annotated };
    }
    default:
      throw new UnshowableBlock(`${where} is of no kind MCP knows`);
  }
}

/** How many bytes `blocks` weigh as the client receives them, measured before any is converted (media as base64). */
export function contentBytes(blocks: readonly ContentBlock__Output[]): number {
  let bytes = 0;
  for (const block of blocks) {
    if (block.text !== undefined) bytes += block.text.length;
    else if (block.image ?? block.audio) bytes += base64Length((block.image ?? block.audio)?.data.length ?? 0);
    else if (block.resource) bytes += block.resource.uri.length + (block.resource.text?.length ?? base64Length(block.resource.blob?.length ?? 0));
    else if (block.resourceLink) bytes += block.resourceLink.uri.length + block.resourceLink.name.length + block.resourceLink.description.length;
  }
  return bytes;
}

/** The blocks as MCP content; throws UnshowableBlock naming the first block that cannot be shown. */
export function mcpContentOf(blocks: readonly ContentBlock__Output[]): ContentBlock[] {
  return blocks.map(blockOf);
}
