import { describe, expect, it } from 'vitest';
import { errorText, redacted, secretsOf } from './redaction.ts';

describe('redaction of what an attempt writes down', () => {
  const secrets = secretsOf(new URL('https://user:pa%24%24word@receiver.example/hook?api_key=k3y-0123'), { secrets: ['s3cret-token'] } as never);

  it('takes out each credential as sent, percent-encoded, in base64 and JSON-escaped, and the URL’s query and user information', () => {
    const echoed = [
      's3cret-token',
      encodeURIComponent('s3cret-token'),
      Buffer.from('s3cret-token').toString('base64'),
      'api_key=k3y-0123',
      'pa$$word',
      'content-type',
    ].join(' | ');
    expect(redacted(echoed, secrets)).toBe('[redacted] | [redacted] | [redacted] | [redacted] | [redacted] | content-type');
  });

  it('takes out a credential echoed in another letter case, whole or as a tail, and one full of pattern characters', () => {
    expect(redacted('authorization: bearer S3CRET-TOKEN, s3Cret-Token', secrets)).toBe('authorization: bearer [redacted], [redacted]');
    expect(redacted('{"token":"S3CRE', secrets)).toBe('{"token":"[redacted]');
    expect(redacted('echo: a.b*c+(d)?[e]{f}|g^h$\\i and A.B*C+(D)?[E]{F}|G^H$\\I', ['a.b*c+(d)?[e]{f}|g^h$\\i'])).toBe('echo: [redacted] and [redacted]');
    expect(redacted('aXbXcXdX', ['a.b.c.d.'])).toBe('aXbXcXdX');
  });

  it('takes out a tail that is the start of a credential, from 4 characters on', () => {
    expect(redacted('{"token":"s3cr', secrets)).toBe('{"token":"[redacted]');
    expect(redacted('{"token":"s3c', secrets)).toBe('{"token":"s3c');
  });

  it('leaves a text shorter than any form as it is, and cuts an error text at 300 characters', () => {
    expect(redacted('{}', secrets)).toBe('{}');
    expect(redacted('s3c', secrets)).toBe('s3c');
    expect(errorText('x'.repeat(400), secrets)).toBe(`${'x'.repeat(300)}...`);
  });
});
