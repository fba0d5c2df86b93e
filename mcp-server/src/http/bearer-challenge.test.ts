import { describe, expect, it } from 'vitest';
import { platformUnavailable, unauthorized } from './bearer-challenge.ts';

const options = { resourceMetadataUrl: 'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp', scope: 'api' };

describe('the answers of a resource server that refuses a request', () => {
  it('challenges a request without a credential with no error code (RFC 6750 3.1) but with resource_metadata and scope', () => {
    const refusal = unauthorized(undefined, 'a Bearer credential is required', options);
    expect(refusal.status).toBe(401);
    expect(refusal.headers['www-authenticate']).toBe(`Bearer resource_metadata="${options.resourceMetadataUrl}", scope="api"`);
  });

  it('names the error and describes it for a refused token', () => {
    const refusal = unauthorized('invalid_token', 'the token was not issued for this service', options);
    expect(refusal.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="the token was not issued for this service", resource_metadata="${options.resourceMetadataUrl}", scope="api"`,
    );
    expect(refusal.body).toEqual({ error: 'invalid_token', error_description: 'the token was not issued for this service' });
  });

  it('keeps quotes, backslashes and control characters out of the quoted strings', () => {
    const header = unauthorized('invalid_token', 'bad "quote" \\ and\r\nnewline', options).headers['www-authenticate'];
    expect(header).toContain('error_description="bad quote  andnewline"');
  });

  it('reports a platform outage as 503 with Retry-After, never as a refused token', () => {
    const refusal = platformUnavailable();
    expect(refusal.status).toBe(503);
    expect(refusal.headers['retry-after']).toBe('5');
    expect(refusal.headers).not.toHaveProperty('www-authenticate');
    expect(refusal.body.error).toBe('temporarily_unavailable');
  });
});
