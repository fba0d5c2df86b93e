// A webhook's url: one string that every HTTP client parses the same way, with no room for
// credentials (they belong in authPayload), stored as the WHATWG URL parser serializes it.
import { z } from 'zod';

export const maxUrlLength = 2048;

export const urlMessages = {
  notWellFormed: 'must be well-formed Unicode (no unpaired surrogates)',
  tooLong: `must be at most ${maxUrlLength} characters`,
  tooLongSerialized: `must be at most ${maxUrlLength} characters as stored (percent-encoded, host in punycode)`,
  invisible: 'must not contain whitespace, control characters or invisible formatting characters',
  backslash: 'must not contain backslashes',
  scheme: 'must be an absolute http or https URL, starting with http:// or https://',
  userInfo:
    'must not contain user information (user:password@); send credentials in authPayload, which is stored encrypted (authType Basic for a user name and password)',
  fragment: 'must not have a fragment (#...); it is never sent to the endpoint',
  host: 'must name a host after the //',
  encodedHost: 'must not percent-encode its host',
  unparsable: 'must be an absolute http or https URL with a valid host and port',
} as const;

/** Whitespace, C0 and C1 controls, DEL and format characters (zero-width, bidi overrides): read differently by different parsers. */
const visibleOnly = /^[^\s\p{Cc}\p{Cf}]*$/u;
const noBackslash = /^[^\\]*$/;
/** WHATWG also accepts `https:host` and `https:/host`, and any letter case; we accept the case only. */
const httpScheme = /^[Hh][Tt][Tt][Pp][Ss]?:\/\//;

/**
 * What is wrong with a url that passed the character and scheme rules, judged on the string as
 * sent (the parser would hide it: it drops an empty user, skips extra slashes, decodes the host).
 */
export function urlStructureProblem(value: string): string | undefined {
  if (!httpScheme.test(value)) return urlMessages.scheme;
  const afterSlashes = value.slice(value.indexOf('//') + 2);
  const authorityEnd = afterSlashes.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterSlashes : afterSlashes.slice(0, authorityEnd);
  if (authority.includes('@')) return urlMessages.userInfo;
  if (value.includes('#')) return urlMessages.fragment;
  const host = authority.replace(/:[0-9]*$/, '');
  if (host === '') return urlMessages.host;
  if (host.includes('%')) return urlMessages.encodedHost;
  if (!URL.canParse(value)) return urlMessages.unparsable;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') return urlMessages.userInfo;
  if (url.hostname === '') return urlMessages.host;
  return undefined;
}

/** The WHATWG serialization, which is what is stored and returned; a string it cannot parse as is. */
export function serializedUrl(value: string): string {
  return URL.canParse(value) ? new URL(value).href : value;
}

/** The url field: required, checked on the string as sent, then replaced by its serialization. */
export const webhookUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, 'is required')
  .max(maxUrlLength, urlMessages.tooLong)
  // The parser would replace an unpaired surrogate by U+FFFD (%EF%BF%BD): a url other than the one sent.
  .refine((value) => value.isWellFormed(), urlMessages.notWellFormed)
  .regex(visibleOnly, urlMessages.invisible)
  .regex(noBackslash, urlMessages.backslash)
  .regex(httpScheme, urlMessages.scheme)
  .superRefine((value, context) => {
    const problem = urlStructureProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .overwrite(serializedUrl)
  .max(maxUrlLength, urlMessages.tooLongSerialized)
  .meta({
    description:
      'An absolute http or https URL, at most 2048 characters before and after serialization, well-formed Unicode; no whitespace, control characters, backslashes, user information or fragment. Stored and returned as the WHATWG URL parser serializes it (lower-case scheme and host, punycode host, default port dropped, path percent-encoded).',
  });
