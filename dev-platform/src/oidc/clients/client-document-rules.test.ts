import { describe, expect, it } from 'vitest';
import { ClientDocumentError } from './client-document-error.ts';
import { clientFromDocument } from './client-document-rules.ts';

const clientId = 'https://app.example/client.json';
const redirect = 'http://127.0.0.1:33418/callback';
const document = (overrides: Record<string, unknown> = {}) => ({ client_id: clientId, client_name: 'App', redirect_uris: [redirect], ...overrides });

function problemOf(given: unknown): string {
  try {
    clientFromDocument(clientId, given);
  } catch (error) {
    if (error instanceof ClientDocumentError && error.code === 'DOCUMENT_INVALID') return error.message;
    throw error;
  }
  throw new Error('the document was taken');
}

describe('clientFromDocument', () => {
  it('keeps what the platform uses: a public client with code and PKCE by default', () => {
    expect(clientFromDocument(clientId, document({ logo_uri: 'https://app.example/logo.png', scope: 'anything' }))).toEqual({
      client_id: clientId,
      client_name: 'App',
      redirect_uris: [redirect],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('leaves out grants it does not offer rather than refuse the document', () => {
    const grants = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'];
    expect(clientFromDocument(clientId, document({ grant_types: grants })).grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('takes private_key_jwt with its keys, inline or at an https URL', () => {
    const keys = [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }];
    expect(clientFromDocument(clientId, document({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys } }))).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys },
    });
    expect(clientFromDocument(clientId, document({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://app.example/jwks' }))).toMatchObject({
      jwks_uri: 'https://app.example/jwks',
    });
  });

  it.each([
    ['an array', [document()], 'the document must be a JSON object'],
    ['another client_id', document({ client_id: 'https://app.example/other.json' }), `client_id: must be the document's own URL, exactly ${clientId}`],
    [
      'a client_id that differs only in case',
      document({ client_id: clientId.toUpperCase() }),
      `client_id: must be the document's own URL, exactly ${clientId}`,
    ],
    ['no name', document({ client_name: undefined }), 'client_name: is required: it names the application to the person asked to allow it'],
    ['a name with control characters', document({ client_name: 'App\u202e' }), 'client_name: must be plain text of 1 to 200 characters'],
    ['no redirect URIs', document({ redirect_uris: undefined }), 'redirect_uris: is required: a list of at least one redirect URI'],
    ['redirect URIs that are not strings', document({ redirect_uris: [1] }), 'redirect_uris: must be a list of strings'],
    ['a wildcard redirect', document({ redirect_uris: [redirect, 'https://*.app.example/cb'] }), 'redirect_uris[1]: must not contain a wildcard (*)'],
    [
      'client_secret_post',
      document({ token_endpoint_auth_method: 'client_secret_post' }),
      'token_endpoint_auth_method: must not be client_secret_post: a document is public, so no secret can be shared through it (use none or private_key_jwt)',
    ],
    [
      'client_secret_jwt',
      document({ token_endpoint_auth_method: 'client_secret_jwt' }),
      'token_endpoint_auth_method: must not be client_secret_jwt: a document is public, so no secret can be shared through it (use none or private_key_jwt)',
    ],
    ['tls_client_auth', document({ token_endpoint_auth_method: 'tls_client_auth' }), 'token_endpoint_auth_method: must be none or private_key_jwt'],
    [
      'private_key_jwt without keys',
      document({ token_endpoint_auth_method: 'private_key_jwt' }),
      'jwks: is required with private_key_jwt (or jwks_uri): a key set with at least one key',
    ],
    [
      'a jwks_uri over http',
      document({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://app.example/jwks' }),
      'jwks_uri: must be an https URL',
    ],
    ['a client_secret', document({ client_secret: 's' }), 'client_secret: must not be in a document: a document is public'],
    ['no authorization_code grant', document({ grant_types: ['client_credentials'] }), 'grant_types: must include authorization_code'],
    ['no code response type', document({ response_types: ['token'] }), 'response_types: must include code'],
  ])('refuses a document with %s, naming the field', (_case, given, problem) => {
    expect(problemOf(given)).toBe(problem);
  });
});
