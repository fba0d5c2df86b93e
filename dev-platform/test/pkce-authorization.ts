// A public client's authorization request at the dev platform, as the sign-in tests make it:
// discovery over loopback http, then the authorization URL with a fresh PKCE (S256) verifier.
import * as oauth from 'openid-client';

/** openid-client's leave to reach the dev platform over plain http on loopback. */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback test servers
const insecure = { execute: [oauth.allowInsecureRequests] };

export interface PkceAuthorization {
  readonly client: oauth.Configuration;
  /** Where the person's browser goes to sign in. */
  readonly url: URL;
  /** For the code grant that follows. */
  readonly verifier: string;
}

/** The authorization request of the public client `clientId` at `issuer`, for scope api and `redirectUri`. */
export async function pkceAuthorization(issuer: string, clientId: string, redirectUri: string): Promise<PkceAuthorization> {
  const client = await oauth.discovery(new URL(issuer), clientId, undefined, oauth.None(), insecure);
  const verifier = oauth.randomPKCECodeVerifier();
  const url = oauth.buildAuthorizationUrl(client, {
    redirect_uri: redirectUri,
    scope: 'api',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { client, url, verifier };
}
