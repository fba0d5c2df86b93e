import { describe, expect, it } from 'vitest';
import { backChannelFetch, platformFetch } from './back-channel.ts';

/** A fetch that answers 204 and keeps the address of every request. */
function recordingFetch() {
  const sent: string[] = [];
  const fetch: typeof globalThis.fetch = (input) => {
    sent.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(new Response(null, { status: 204 }));
  };
  return { fetch, sent };
}

describe('backChannelFetch', () => {
  it("sends requests for the identities' origins to the back channel, keeping path and query", async () => {
    const { fetch, sent } = recordingFetch();
    const backChannel = backChannelFetch({
      identities: ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/issuer'],
      backChannel: 'https://dev-platform:4443',
      fetch,
    });
    await backChannel('http://127.0.0.1:4000/.well-known/openid-configuration');
    await backChannel(new URL('http://127.0.0.1:4000/api/me?x=1'));
    await backChannel(new Request('http://127.0.0.1:4000/token', { method: 'POST', body: 'grant_type=client_credentials' }));
    expect(sent).toEqual([
      'https://dev-platform:4443/.well-known/openid-configuration',
      'https://dev-platform:4443/api/me?x=1',
      'https://dev-platform:4443/token',
    ]);
  });

  it('leaves every other address alone (another port, another host, the back channel itself)', async () => {
    const { fetch, sent } = recordingFetch();
    const backChannel = backChannelFetch({ identities: ['http://127.0.0.1:4000'], backChannel: 'https://dev-platform:4443', fetch });
    const others = ['http://127.0.0.1:4001/v1/embeddings', 'https://webhook-api-1:4443/v2/webhooks', 'https://dev-platform:4443/token'];
    for (const url of others) await backChannel(url);
    expect(sent).toEqual(others);
  });

  it('keeps the method, headers and body of a Request it redirects', async () => {
    let seen: Request | undefined;
    const backChannel = backChannelFetch({
      identities: ['http://127.0.0.1:4000'],
      backChannel: 'https://dev-platform:4443',
      fetch: (input) => {
        seen = input as Request;
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    await backChannel(new Request('http://127.0.0.1:4000/token', { method: 'POST', headers: { authorization: 'Basic abc' }, body: 'a=1' }));
    expect([seen?.url, seen?.method, seen?.headers.get('authorization'), await seen?.text()]).toEqual([
      'https://dev-platform:4443/token',
      'POST',
      'Basic abc',
      'a=1',
    ]);
  });

  it('refuses a back channel with a path, and identities that are not URLs', () => {
    expect(() => backChannelFetch({ identities: ['http://127.0.0.1:4000'], backChannel: 'https://dev-platform:4443/platform' })).toThrow(/origin/);
    expect(() => backChannelFetch({ identities: ['not a url'], backChannel: 'https://dev-platform:4443' })).toThrow(/identities/);
  });

  it('is none without a back channel (platformFetch), so requests go to the identities themselves', () => {
    expect(platformFetch({ backChannelUrl: undefined, identities: ['http://127.0.0.1:4000'] })).toBeUndefined();
    expect(platformFetch({ backChannelUrl: 'https://dev-platform:4443', identities: ['http://127.0.0.1:4000'] })).toBeTypeOf('function');
  });
});
