import { describe, expect, it } from 'vitest';
import { clientIdUrlProblem, isClientIdUrl } from './client-id-url.ts';

const development = { allowLoopbackHttp: true };
const production = { allowLoopbackHttp: false };

describe('isClientIdUrl', () => {
  it.each([
    ['https://app.example/client.json', true],
    ['HTTP://127.0.0.1:1/c.json', true],
    ['Xy7Ab-registered-client-id', false],
    ['webhook-tools', false],
  ])('%s is meant as a document URL: %s', (clientId, meant) => {
    expect(isClientIdUrl(clientId)).toBe(meant);
  });
});

describe('clientIdUrlProblem', () => {
  it.each([
    'https://app.example/client.json',
    'https://app.example:8443/oauth/client-metadata.json',
    'https://app.example/client?version=2',
    'https://127.0.0.1:4443/client.json',
  ])('takes %s', (clientId) => {
    expect(clientIdUrlProblem(clientId, production)).toBeUndefined();
  });

  it.each(['http://127.0.0.1:5000/client.json', 'http://localhost:5000/c.json', 'http://[::1]:5000/c.json'])('takes %s in development only', (clientId) => {
    expect(clientIdUrlProblem(clientId, development)).toBeUndefined();
    expect(clientIdUrlProblem(clientId, production)).toBe('must be an https URL (http is taken on loopback only, and not in production)');
  });

  it.each([
    ['http to another host', 'http://app.example/client.json', 'must be an https URL (or an http URL on loopback: 127.0.0.1, [::1], localhost)'],
    ['no path', 'https://app.example', 'must have a path (https://host/client.json): the document is the path, not the host'],
    ['the root path', 'https://app.example/', 'must have a path (https://host/client.json): the document is the path, not the host'],
    ['a dot segment', 'https://app.example/a/../client.json', 'must not contain . or .. path segments'],
    ['an encoded dot segment', 'https://app.example/%2e/client.json', 'must not contain . or .. path segments'],
    ['a fragment', 'https://app.example/client.json#me', 'must not have a fragment (#...)'],
    ['user information', 'https://me@app.example/client.json', 'must not contain user information (user:password@)'],
    ['a space', 'https://app.example/my client.json', 'must not contain whitespace, control characters or invisible formatting characters'],
    ['a backslash', 'https://app.example\\client.json', 'must not contain backslashes'],
    ['another scheme', 'ftp://app.example/client.json', 'must be an https URL (or an http URL on loopback: 127.0.0.1, [::1], localhost)'],
    ['excess length', `https://app.example/${'x'.repeat(2000)}`, 'must be at most 2000 characters'],
  ])('refuses a client id with %s', (_case, clientId, problem) => {
    expect(clientIdUrlProblem(clientId, development)).toBe(problem);
  });
});
