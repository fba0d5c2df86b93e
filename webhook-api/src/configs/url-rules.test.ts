// The url rules: what is refused, with which message, and the serialization that is stored.
import { describe, expect, it } from 'vitest';
import { maxUrlLength, urlMessages, webhookUrl } from './url-rules.ts';

/** The first message the url schema gives, as the API reports it; undefined when the url is accepted. */
const firstProblem = (value: unknown) => webhookUrl.safeParse(value).error?.issues[0]?.message;

describe('the webhook url', () => {
  it.each([
    ['https://receiver.example/hook', 'https://receiver.example/hook'],
    ['HTTPS://Receiver.Example:443/hook', 'https://receiver.example/hook'],
    ['http://receiver.example:8080', 'http://receiver.example:8080/'],
    ['https://receiver.example/a/./b/../hook?q=a b'.replace(' ', '%20'), 'https://receiver.example/a/hook?q=a%20b'],
    ['https://receiver.example/wärme?ort=zürich', 'https://receiver.example/w%C3%A4rme?ort=z%C3%BCrich'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['https://receiver.example/\u{1f600}', 'https://receiver.example/%F0%9F%98%80'],
    ['https://[::1]:8443/hook', 'https://[::1]:8443/hook'],
    ['https://10.0.0.1/hook', 'https://10.0.0.1/hook'],
    ['https://receiver.example/path@with-at?mail=a@b.example', 'https://receiver.example/path@with-at?mail=a@b.example'],
    ['https://receiver.example/hook?site=north&passenger=1&keys=2&signal=on', 'https://receiver.example/hook?site=north&passenger=1&keys=2&signal=on'],
  ])('accepts %s as its WHATWG serialization %s', (input, href) => {
    expect(webhookUrl.parse(input)).toBe(href);
  });

  it.each([
    ['user and password', 'https://ingest:pw@receiver.example/hook', urlMessages.userInfo],
    ['a user', 'https://ingest@receiver.example/hook', urlMessages.userInfo],
    ['an empty user the parser would drop', 'https://@receiver.example/hook', urlMessages.userInfo],
    ['an empty password', 'https://ingest:@receiver.example/hook', urlMessages.userInfo],
    ['a NUL', 'https://receiver.example/\u0000', urlMessages.invisible],
    ['a DEL', 'https://receiver.example/\u007f', urlMessages.invisible],
    ['a C1 control', 'https://receiver.example/\u0085', urlMessages.invisible],
    ['a tab the parser would remove', 'https://receiver.ex\tample/hook', urlMessages.invisible],
    ['a trailing line feed', 'https://receiver.example/hook\n', urlMessages.invisible],
    ['a leading space the parser would strip', ' https://receiver.example/hook', urlMessages.invisible],
    ['an ideographic space', 'https://receiver.example/\u3000', urlMessages.invisible],
    ['a zero-width space', 'https://receiver\u200b.example/hook', urlMessages.invisible],
    ['a right-to-left override', 'https://receiver.example/\u202ekoob', urlMessages.invisible],
    ['a lone high surrogate the parser would make U+FFFD', 'https://r.example/a\ud800b', urlMessages.notWellFormed],
    ['a lone low surrogate', 'https://r.example/a\udc00b', urlMessages.notWellFormed],
    ['a surrogate pair reversed', 'https://r.example/\udc00\ud800', urlMessages.notWellFormed],
    ['a lone surrogate in the host', 'https://r\ud800.example/', urlMessages.notWellFormed],
    ['a backslash the parser reads as a slash', 'https://evil.example\\@receiver.example/', urlMessages.backslash],
    ['backslashes for slashes', 'https:\\\\receiver.example/hook', urlMessages.backslash],
    ['no slashes', 'https:receiver.example/hook', urlMessages.scheme],
    ['one slash', 'https:/receiver.example/hook', urlMessages.scheme],
    ['a relative path', '/hook', urlMessages.scheme],
    ['no scheme', 'receiver.example/hook', urlMessages.scheme],
    ['ftp', 'ftp://receiver.example/hook', urlMessages.scheme],
    ['a scheme that merely starts with http', 'httpx://receiver.example/hook', urlMessages.scheme],
    ['three slashes', 'https:///receiver.example/hook', urlMessages.host],
    ['only a port', 'https://:8080/hook', urlMessages.host],
    ['nothing after the slashes', 'https://', urlMessages.host],
    ['a fragment', 'https://receiver.example/hook#top', urlMessages.fragment],
    ['an access_token in the query', 'https://receiver.example/hook?access_token=SECRET', urlMessages.queryCredential],
    ['an api key in the query, named in any case', 'https://receiver.example/hook?site=north&API-Key=SECRET', urlMessages.queryCredential],
    ["Azure Functions' code", 'https://fn.example/api/in?code=SECRET', urlMessages.queryCredential],
    ["a shared access signature's sig", 'https://blob.example/c?sv=2024&sig=SECRET', urlMessages.queryCredential],
    ['a password, percent-encoded in its name', 'https://receiver.example/hook?pass%77ord=SECRET', urlMessages.queryCredential],
    ['code after a plus', 'https://fn.example/api?+code=SECRET', urlMessages.queryCredential],
    ['code with an encoded space after it', 'https://fn.example/api?code%20=SECRET', urlMessages.queryCredential],
    ['sig as an array', 'https://blob.example/c?sig[]=SECRET', urlMessages.queryCredential],
    ['an access_token after a semicolon', 'https://receiver.example/hook?x=1;access_token=SECRET', urlMessages.queryCredential],
    ['code with a fullwidth c', 'https://fn.example/api?%EF%BD%83ode=SECRET', urlMessages.queryCredential],
    ['a key in a bad percent-encoding', 'https://receiver.example/hook?api_key%zz=SECRET', urlMessages.queryCredential],
    ['an empty fragment', 'https://receiver.example/hook#', urlMessages.fragment],
    ['a percent-encoded host', 'https://receiver%2Eexample/hook', urlMessages.encodedHost],
    ['a port out of range', 'https://receiver.example:65536/hook', urlMessages.unparsable],
    ['a forbidden host character', 'https://rece<iver.example/hook', urlMessages.unparsable],
    ['an empty string', '', 'is required'],
    ['a number', 42, 'must be a string'],
    ['a missing value', undefined, 'is required'],
  ])('refuses %s', (_case, input, message) => {
    expect(firstProblem(input)).toBe(message);
  });

  it('refuses more than 2048 characters as sent', () => {
    const url = `https://receiver.example/${'a'.repeat(maxUrlLength)}`;
    expect(firstProblem(url)).toBe(urlMessages.tooLong);
    expect(firstProblem(url.slice(0, maxUrlLength))).toBeUndefined();
  });

  it('refuses a url that serializes to more than 2048 characters', () => {
    const url = `https://receiver.example/${'ä'.repeat(700)}`;
    expect(url.length).toBeLessThan(maxUrlLength);
    expect(firstProblem(url)).toBe(urlMessages.tooLongSerialized);
  });

  it('never puts the user information it refuses into its message', () => {
    expect(firstProblem('https://ingest:hunter2-secret@receiver.example/')).toBe(urlMessages.userInfo);
    expect(JSON.stringify(webhookUrl.safeParse('https://ingest:hunter2-secret@receiver.example/').error?.issues)).not.toContain('hunter2');
    expect(urlMessages.userInfo).toContain('authPayload');
  });
});
