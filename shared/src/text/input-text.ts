// The input rules every HTTP edge of the stack keeps for what people type: text without control
// characters, and web addresses every HTTP client reads the same way. Each edge maps a problem to
// its own error shape; messages never repeat the value.
import type { z } from 'zod';
import { hasControlCharacters, hasDirectionControls, hasInvisibleCharacters, unsafeTextMessages } from './text-safety.ts';

/** A zod string refined to plain text (the single-line rule of text-safety.ts): an id, a name, a title, a tag. */
export function plainText<S extends z.ZodString>(schema: S): S {
  return schema
    .refine((value) => !hasControlCharacters(value), unsafeTextMessages.controls)
    .refine((value) => !hasDirectionControls(value), unsafeTextMessages.direction)
    .refine((value) => value.isWellFormed(), unsafeTextMessages.notWellFormed);
}

/** The message safe to show for each `WebAddressProblem`. */
export const webAddressMessages = {
  notWellFormed: 'must be well-formed Unicode (no unpaired surrogates)',
  invisible: 'must not contain whitespace, control characters or invisible formatting characters',
  backslash: 'must not contain backslashes',
  scheme: 'must be an absolute http or https URL, starting with http:// or https://',
  userInfo: 'must not contain user information (user:password@)',
  fragment: 'must not have a fragment (#...)',
  host: 'must name a host after the //',
  encodedHost: 'must not percent-encode its host',
  unparsable: 'must be an absolute http or https URL with a valid host and port',
} as const;

/** Why a web address is refused (a key of `webAddressMessages`). */
export type WebAddressProblem = keyof typeof webAddressMessages;

/** WHATWG also accepts `https:host` and `https:/host`, and any letter case; the case only is accepted here. */
const httpScheme = /^[Hh][Tt][Tt][Pp][Ss]?:\/\//;

/**
 * What is wrong with an http(s) address, judged on the string as sent (the WHATWG parser would hide
 * it: it drops tabs and an empty user, skips extra slashes, decodes the host); undefined when nothing.
 * A fragment is refused unless allowed: a request never carries it, so it only means something in
 * an address a person opens.
 */
export function webAddressProblem(value: string, options: { allowFragment?: boolean } = {}): WebAddressProblem | undefined {
  if (!value.isWellFormed()) return 'notWellFormed';
  // Whitespace, controls and format characters (zero-width, bidi overrides): read differently by different parsers.
  if (hasInvisibleCharacters(value)) return 'invisible';
  if (value.includes('\\')) return 'backslash';
  if (!httpScheme.test(value)) return 'scheme';
  const afterSlashes = value.slice(value.indexOf('//') + 2);
  const authorityEnd = afterSlashes.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterSlashes : afterSlashes.slice(0, authorityEnd);
  if (authority.includes('@')) return 'userInfo';
  if (!options.allowFragment && value.includes('#')) return 'fragment';
  const host = authority.replace(/:[0-9]*$/, '');
  if (host === '') return 'host';
  if (host.includes('%')) return 'encodedHost';
  if (!URL.canParse(value)) return 'unparsable';
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') return 'userInfo';
  if (url.hostname === '') return 'host';
  return undefined;
}

/** The WHATWG serialization of an address (what to store); a string it cannot parse as it is. */
export function serializedWebAddress(value: string): string {
  return URL.canParse(value) ? new URL(value).href : value;
}
