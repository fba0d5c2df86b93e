// What a client ID metadata document must say for the platform to take it as a client: its own URL
// as client_id, a name to show the person, redirect URIs held to the platform's rules, and a way to
// authenticate that needs no shared secret (none, or private_key_jwt with its keys). Only what the
// platform uses is kept, so a document written for many authorization servers is no problem here.
import type { ClientMetadata } from 'oidc-provider';
import { isPlainText } from '@platform/tool-sdk/internal';
import { ClientDocumentError } from './client-document-error.ts';
import { redirectUriProblem } from './redirect-uri-rules.ts';

const maxNameLength = 200;
const maxRedirectUris = 20;
const supportedGrants = new Set(['authorization_code', 'refresh_token']);
const sharedSecretMethods = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

const invalid = (field: string, problem: string) => new ClientDocumentError('DOCUMENT_INVALID', `${field}: ${problem}`);

function optionalStrings(document: Record<string, unknown>, field: string): string[] | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw invalid(field, 'must be a list of strings');
  return value;
}

function clientName(document: Record<string, unknown>): string {
  const name = document.client_name;
  if (name === undefined) throw invalid('client_name', 'is required: it names the application to the person asked to allow it');
  if (typeof name !== 'string' || name.trim() === '' || name.length > maxNameLength || !isPlainText(name)) {
    throw invalid('client_name', `must be plain text of 1 to ${maxNameLength} characters`);
  }
  return name;
}

function redirectUris(document: Record<string, unknown>): string[] {
  const uris = optionalStrings(document, 'redirect_uris');
  if (uris === undefined || uris.length === 0) throw invalid('redirect_uris', 'is required: a list of at least one redirect URI');
  if (uris.length > maxRedirectUris) throw invalid('redirect_uris', `must list at most ${maxRedirectUris} URIs`);
  uris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalid(`redirect_uris[${index}]`, problem);
  });
  return uris;
}

/** How the client authenticates at the token endpoint, and the keys private_key_jwt needs. */
function authentication(document: Record<string, unknown>): Pick<ClientMetadata, 'token_endpoint_auth_method' | 'jwks' | 'jwks_uri'> {
  const method = document.token_endpoint_auth_method ?? 'none';
  if (typeof method === 'string' && sharedSecretMethods.has(method)) {
    throw invalid(
      'token_endpoint_auth_method',
      `must not be ${method}: a document is public, so no secret can be shared through it (use none or private_key_jwt)`,
    );
  }
  if (method === 'none') return { token_endpoint_auth_method: 'none' };
  if (method !== 'private_key_jwt') throw invalid('token_endpoint_auth_method', 'must be none or private_key_jwt');
  const { jwks, jwks_uri: jwksUri } = document;
  if (jwksUri !== undefined) {
    if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri) || new URL(jwksUri).protocol !== 'https:') throw invalid('jwks_uri', 'must be an https URL');
    return { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri };
  }
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw invalid('jwks', 'is required with private_key_jwt (or jwks_uri): a key set with at least one key');
  return { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: keys as NonNullable<ClientMetadata['jwks']>['keys'] } };
}

/** The client `document` (parsed JSON) describes, as the authorization server takes it; throws a ClientDocumentError naming the field. */
export function clientFromDocument(clientId: string, document: unknown): ClientMetadata {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ClientDocumentError('DOCUMENT_INVALID', 'the document must be a JSON object');
  }
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw invalid('client_id', `must be the document's own URL, exactly ${clientId}`);
  for (const secret of ['client_secret', 'client_secret_expires_at']) {
    if (secret in fields) throw invalid(secret, 'must not be in a document: a document is public');
  }
  const asked = optionalStrings(fields, 'grant_types') ?? ['authorization_code'];
  if (!asked.includes('authorization_code')) throw invalid('grant_types', 'must include authorization_code');
  const responseTypes = optionalStrings(fields, 'response_types') ?? ['code'];
  if (!responseTypes.includes('code')) throw invalid('response_types', 'must include code');
  return {
    client_id: clientId,
    client_name: clientName(fields),
    redirect_uris: redirectUris(fields),
    // Grants the document names for other servers (a device flow, say) are left out, not held against it.
    grant_types: asked.filter((grant) => supportedGrants.has(grant)),
    response_types: ['code'],
    ...authentication(fields),
  };
}
