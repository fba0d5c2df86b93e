// A headless sign-in at the dev platform for tests: a browser reduced to what OAuth's
// authorization-code flow needs (cookies, redirects followed by hand) and the login form and the
// consent page answered as a person would. The dev platform's own tests sign their OAuth clients in with it, and the MCP
// server's tests run it as the BROWSER that mcp-remote opens.

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

export type SignInOutcome =
  /** The authorization server redirected to the client's redirect URI (its query has the code, or the error). */
  | { readonly kind: 'redirected'; readonly callback: URL; readonly callbackStatus?: number; readonly consentShown: boolean }
  /** The consent page was shown and, as asked, left unanswered; `page` is its HTML. */
  | { readonly kind: 'consent'; readonly page: string }
  /** The login form refused the credentials. */
  | { readonly kind: 'refused'; readonly status: number };

export interface SignInOptions {
  /** Also visit the redirect URI, as a browser does (default false: stop before it, for a client in the test itself). */
  readonly deliver?: boolean;
  /** What the person does on a consent page: allow (the default), deny, or stop there. */
  readonly consent?: 'approve' | 'deny' | 'stop';
  /** The browser to use, with its cookies (a session from an earlier sign-in); a fresh one by default. */
  readonly visit?: Visit;
}

export type Visit = (url: string, init?: RequestInit) => Promise<Response>;

/** A browser reduced to what the flow needs: cookies, and redirects followed by hand. */
export function browser(): Visit {
  const cookies = new Map<string, string>();
  return async (url, init = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', ...value] = pair.split('=');
      cookies.set(name.trim(), value.join('='));
    }
    return response;
  };
}

/**
 * Follows `authorizationUrl` until the authorization server sends the browser to the client's
 * redirect URI (read from the URL's own `redirect_uri`), answering the login form on the way.
 */
export async function signIn(authorizationUrl: string, credentials: Credentials, options: SignInOptions = {}): Promise<SignInOutcome> {
  const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('the authorization URL names no redirect_uri');
  const visit = options.visit ?? browser();
  let next = authorizationUrl;
  let consentShown = false;
  for (let hops = 0; hops < 12; hops++) {
    if (next.startsWith(redirectUri)) {
      const callback = new URL(next);
      if (!options.deliver) return { kind: 'redirected', callback, consentShown };
      const delivered = await visit(next);
      await delivered.body?.cancel();
      return { kind: 'redirected', callback, callbackStatus: delivered.status, consentShown };
    }
    const response = await visit(next);
    if (response.status === 200 && (response.headers.get('content-type') ?? '').includes('html')) {
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
      if (!action) throw new Error(`no login form at ${new URL(next).pathname}`);
      const isConsent = action.endsWith('/consent');
      if (isConsent) {
        consentShown = true;
        if (options.consent === 'stop') return { kind: 'consent', page: html };
      }
      const answer: Record<string, string> = isConsent
        ? { decision: options.consent === 'deny' ? 'deny' : 'approve' }
        : { username: credentials.username, password: credentials.password };
      const posted = await visit(new URL(action, next).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(answer).toString(),
      });
      if (posted.status !== 303 && posted.status !== 302) {
        await posted.body?.cancel();
        return { kind: 'refused', status: posted.status };
      }
      next = new URL(posted.headers.get('location') ?? '', next).href;
      continue;
    }
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) throw new Error(`stuck at ${new URL(next).pathname}: ${response.status}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}
