// A webhook's url: one string that every HTTP client parses the same way (the SDK's web-address
// rules), with no room for credentials (they belong in authPayload), stored as the WHATWG URL
// parser serializes it.
import { serializedWebAddress, webAddressMessages, webAddressProblem } from '@platform/tool-sdk/internal';
import { z } from 'zod';
import { looksLikeCredential } from './header-rules.ts';

export const maxUrlLength = 2048;

export const urlMessages = {
  ...webAddressMessages,
  userInfo:
    'must not contain user information (user:password@); send credentials in authPayload, which is stored encrypted (authType Basic for a user name and password)',
  fragment: 'must not have a fragment (#...); it is never sent to the endpoint',
  queryCredential:
    'must not carry a credential in its query string (a parameter named as a header carrying a credential would be, such as access_token, api_key or password, or code, sig or key): the url is returned in clear on every read; send it with authType Bearer, ApiKey or Custom, whose credentials are stored encrypted',
  tooLong: `must be at most ${maxUrlLength} characters`,
  tooLongSerialized: `must be at most ${maxUrlLength} characters as stored (percent-encoded, host in punycode)`,
} as const;

/** Query parameters that carry a credential beside those named like one: Azure Functions' `code`, a shared access signature's `sig`. */
const credentialParameters = new Set(['code', 'sig', 'key']);

/**
 * A query parameter's name as a server may read it: percent-decoded (`+` a space), compatibility
 * forms folded (a fullwidth ｃ is c), trimmed, and without the `[...]` of an array (`sig[]`).
 */
function parameterName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoding: read as it is.
  }
  return name
    .normalize('NFKC')
    .trim()
    .replace(/\[[^\]]*\]$/, '')
    .trim();
}

/**
 * Whether a url (one webAddressProblem passed) has a query parameter named like a credential (the
 * header rule, and a few names of the query's own), split at `;` as well as `&`, as some servers do.
 * A secret in the path (the style of some chat webhooks) is the url itself and is not told apart.
 */
function queryCarriesCredential(value: string): boolean {
  const query = new URL(value).search.slice(1);
  for (const pair of query.split(/[&;]/)) {
    const name = parameterName(pair.split('=', 1)[0] ?? '');
    if (name !== '' && (looksLikeCredential(name) || credentialParameters.has(name.toLowerCase()))) return true;
  }
  return false;
}

/** The url field: required, checked on the string as sent, then replaced by its serialization. */
export const webhookUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, 'is required')
  .max(maxUrlLength, urlMessages.tooLong)
  .superRefine((value, context) => {
    const problem = webAddressProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: urlMessages[problem] });
    else if (queryCarriesCredential(value)) context.addIssue({ code: 'custom', message: urlMessages.queryCredential });
  })
  .overwrite(serializedWebAddress)
  .max(maxUrlLength, urlMessages.tooLongSerialized)
  .meta({
    description:
      'An absolute http or https URL, at most 2048 characters before and after serialization, well-formed Unicode; no whitespace, control characters, backslashes, user information, fragment or query parameter named like a credential (the customHeaders rule for names, and code, sig, key). Stored and returned as the WHATWG URL parser serializes it (lower-case scheme and host, punycode host, default port dropped, path percent-encoded).',
  });
