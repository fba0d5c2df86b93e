// The one JSON body rule: no body passes, a JSON media type in UTF-8 as sent is taken, anything else
// is refused naming the header at fault.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hasRequestBody, jsonBodyRefusal } from './json-body.ts';

const withBody = (headers: IncomingHttpHeaders): IncomingHttpHeaders => ({ 'content-length': '2', ...headers });

describe('hasRequestBody', () => {
  it.each([
    [{}, false],
    [{ 'content-length': '0' }, false],
    [{ 'content-length': '12' }, true],
    [{ 'transfer-encoding': 'chunked' }, true],
  ] satisfies [IncomingHttpHeaders, boolean][])('reads %j as %s', (headers, expected) => {
    expect(hasRequestBody(headers)).toBe(expected);
  });
});

describe('jsonBodyRefusal', () => {
  it('passes a request without a body whatever its headers say', () => {
    expect(jsonBodyRefusal({ 'content-type': 'text/plain; charset=utf-16', 'content-encoding': 'gzip' })).toBeUndefined();
    expect(jsonBodyRefusal({ 'content-length': '0', 'content-type': 'text/plain' })).toBeUndefined();
  });

  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="UTF-8"',
    'application/merge-patch+json',
    'application/problem+json; charset=utf-8',
  ])('takes a body sent as %s', (contentType) => {
    expect(jsonBodyRefusal(withBody({ 'content-type': contentType }))).toBeUndefined();
    expect(jsonBodyRefusal(withBody({ 'content-type': contentType, 'content-encoding': 'identity' }))).toBeUndefined();
    expect(jsonBodyRefusal({ 'transfer-encoding': 'chunked', 'content-type': contentType })).toBeUndefined();
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'application/jsonx',
    'text/json',
    'application/+json',
  ])('refuses a body sent as %s naming Content-Type', (contentType) => {
    expect(jsonBodyRefusal(withBody(contentType === undefined ? {} : { 'content-type': contentType }))).toEqual({
      field: 'Content-Type',
      message: 'Content-Type: must be application/json',
    });
  });

  // RFC 8259 defines no charset parameter and requires UTF-8: only utf-8 itself is taken.
  it.each(['utf8', 'UTF8', 'utf-16', 'utf-16le', '"UTF-7"', 'iso-8859-1', 'us-ascii', ''])('refuses charset=%s naming Content-Type', (charset) => {
    expect(jsonBodyRefusal(withBody({ 'content-type': `application/json; charset=${charset}` }))).toEqual({
      field: 'Content-Type',
      message: 'Content-Type: the charset must be utf-8',
    });
  });

  it('refuses a second charset that is not utf-8, though the first is', () => {
    expect(jsonBodyRefusal(withBody({ 'content-type': 'application/json; charset=utf-8; charset=utf-16' }))?.field).toBe('Content-Type');
  });

  it.each(['gzip', 'deflate', 'br', 'GZIP', 'identity, gzip'])('refuses Content-Encoding %s naming it', (encoding) => {
    expect(jsonBodyRefusal(withBody({ 'content-type': 'application/json', 'content-encoding': encoding }))).toEqual({
      field: 'Content-Encoding',
      message: 'Content-Encoding: bodies are taken as sent, without a Content-Encoding',
    });
  });
});
