// A browser reduced to what the authorization-code flow needs (cookies, redirects followed by hand)
// and a person signing in through the dev platform's login form with it.

export type Visit = (url: string, init?: RequestInit) => Promise<Response>;

/** A browser reduced to what the flow needs: cookies and manual redirects. */
export function browser(): Visit {
  const cookies = new Map<string, string>();
  return async function visit(url, init = {}) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', ...value] = pair.split('=');
      cookies.set(name.trim(), value.join('='));
    }
    return response;
  };
}

export interface SignInOptions {
  readonly issuer: string;
  readonly redirectUri: string;
  readonly username: string;
  readonly password: string;
}

/** Follows redirects from `url` until one leaves for the client's redirect URI; answers the login form on the way. */
export async function signIn(
  visit: Visit,
  url: string,
  { issuer, redirectUri, username, password }: SignInOptions,
): Promise<{ callback?: URL; loginStatus?: number }> {
  let next = url;
  for (let hops = 0; hops < 12; hops++) {
    if (next.startsWith(redirectUri)) return { callback: new URL(next) };
    const response = await visit(next);
    if (response.status === 200 && (response.headers.get('content-type') ?? '').includes('html')) {
      const html = await response.text();
      const action = /action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no login form in: ${html.slice(0, 200)}`);
      const posted = await visit(new URL(action, issuer).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username, password }).toString(),
      });
      if (posted.status !== 303) return { loginStatus: posted.status };
      next = new URL(posted.headers.get('location') ?? '', issuer).href;
      continue;
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`stuck at ${next}: ${response.status} ${await response.text()}`);
    next = new URL(location, issuer).href;
  }
  throw new Error('too many redirects');
}
