import { describe, expect, it } from 'vitest';
import { redirectUriProblem } from './redirect-uri-rules.ts';

describe('redirectUriProblem', () => {
  it.each([
    'http://127.0.0.1:54321/callback',
    'http://localhost:33418/oauth/callback',
    'http://[::1]:1/cb',
    'http://127.0.0.1/cb',
    'https://app.example/cb',
    'https://app.example:8443/oauth?x=1',
  ])('takes %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['http://evil.example/cb', 'must use https, unless it is on loopback'],
    ['http://localhost.evil.example/cb', 'must use https, unless it is on loopback'],
    ['https://*.example.com/cb', 'wildcard'],
    ['https://app.example/*', 'wildcard'],
    ['https://user:pw@app.example/cb', 'user information'],
    ['http://user@127.0.0.1:1/cb', 'user information'],
    ['myapp://callback', 'must be an https URL, or an http URL on loopback'],
    ['javascript:alert(1)', 'must be an https URL'],
    ['https://app.example/cb#frag', 'fragment'],
    ['https://app.example/c b', 'whitespace'],
    [42, 'must be a string'],
  ])('refuses %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toContain(problem);
  });
});
