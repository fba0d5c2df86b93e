// What an interactive OAuth client keeps between the redirect and the callback, in memory: the
// MCP SDK client's OAuthClientProvider for the tests that sign a seeded person in through the dev
// platform (a client that registers itself, or one named by its metadata document's URL).
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';

export interface MemoryOAuthProviderOptions {
  /** The client's callback: never listened on, the test reads the code from the sign-in's redirect. */
  readonly redirectUrl: string;
  readonly clientName: string;
  /** The URL of the client's metadata document, its client_id (no registration); none: it registers itself. */
  readonly clientMetadataUrl?: string;
}

export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  readonly clientMetadataUrl: string | undefined;
  /** What the client registered as, or was told it is. */
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  private verifier = '';
  private discovered: OAuthDiscoveryState | undefined;
  private readonly expectedState = randomBytes(16).toString('base64url');

  constructor(options: MemoryOAuthProviderOptions) {
    this.redirectUrl = options.redirectUrl;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.clientMetadata = {
      client_name: options.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.expectedState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }
  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }
  /** The callback's parameters, once its state is checked (the SDK leaves that to the client). */
  callbackParams(callback: URL): URLSearchParams {
    if (callback.searchParams.get('state') !== this.expectedState) throw new Error('the callback carries another state');
    return callback.searchParams;
  }
}
