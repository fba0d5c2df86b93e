// The headers of every page the sign-in shows a person (the login form, the consent page, the
// error pages): never framed by another page (X-Frame-Options and CSP frame-ancestors, so that a
// page elsewhere cannot lay a button of its own over Allow), never kept by a cache (they carry a
// person's sign-in), and a Content-Security-Policy that allows only what the pages use: their one
// stylesheet (by its hash), and forms posted to the platform and, on the redirect that follows, to
// the client's redirect URI. No script, image, font or connection of any kind.
import { createHash } from 'node:crypto';

/** The pages' one stylesheet, inline: the policy allows exactly this text. */
export const pageStyle =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}' +
  'label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}' +
  'button{margin:1rem .5rem 0 0;padding:.5rem 1rem}code{word-break:break-all}.error{color:#b00020}.warning{border-left:4px solid #b26a00;padding-left:.75rem}';

const styleSource = `'sha256-${createHash('sha256').update(pageStyle).digest('base64')}'`;

/** The `<style>` element every page carries in its head. */
export const pageStyleElement = `<style>${pageStyle}</style>`;

export interface PagePolicy {
  /**
   * Where the page's forms may send the browser, as origins, besides the platform itself: the
   * client's redirect URI, which the redirect after the form goes to. Undefined for a page with no
   * form: no form action at all.
   */
  readonly formTargets?: readonly string[] | undefined;
}

/** The header names and values a page is sent with. */
export function pageHeaders(policy: PagePolicy = {}): Readonly<Record<string, string>> {
  const formAction = policy.formTargets === undefined ? "'none'" : ["'self'", ...policy.formTargets].join(' ');
  return {
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; style-src ${styleSource}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/** The origin of a redirect URI, for a page's form targets; none for a value that is no URL. */
export function redirectOrigin(redirectUri: unknown): string[] {
  return typeof redirectUri === 'string' && URL.canParse(redirectUri) ? [new URL(redirectUri).origin] : [];
}
