import { toWebRequest } from '@modelcontextprotocol/node';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { isLegacyPost } from './mcp-endpoint.ts';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'client', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const posts: [string, Record<string, string>, unknown][] = [
  [
    'a 2025 initialize',
    {},
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
  ],
  ['a 2025 tools/call in a session', { 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } }],
  ['a 2025 notification', { 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['a 2025 batch', {}, [{ jsonrpc: '2.0', id: 3, method: 'tools/list' }]],
  ['a posted response', {}, { jsonrpc: '2.0', id: 4, result: {} }],
  [
    'a 2026 tools/list with its envelope and headers',
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: envelope } },
  ],
  [
    'a 2026 request without its Mcp-Method header',
    { 'mcp-protocol-version': '2026-07-28' },
    { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope } },
  ],
  [
    'a 2026 header on a body without the envelope',
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    { jsonrpc: '2.0', id: 7, method: 'tools/list' },
  ],
  [
    'server/discover',
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    { jsonrpc: '2.0', id: 8, method: 'server/discover', params: { _meta: envelope } },
  ],
  [
    'an envelope naming an unknown revision',
    {},
    { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
  ],
  ['an empty object', {}, {}],
  // At the edges of the shortcut for a 2026-07-28 header (isModernUnderItsHeader).
  ['a posted response under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', id: 10, result: {} }],
  ['a posted error under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', id: 11, error: { code: -32600, message: 'no' } }],
  [
    'a request that also carries a result, under a 2026 header',
    { 'mcp-protocol-version': '2026-07-28' },
    { jsonrpc: '2.0', id: 12, method: 'tools/list', result: {} },
  ],
  ['a batch under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, [{ jsonrpc: '2.0', id: 13, method: 'tools/list' }]],
  [
    'a 2025 initialize under a 2026 header',
    { 'mcp-protocol-version': '2026-07-28' },
    { jsonrpc: '2.0', id: 14, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
  ],
  ['a notification under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', method: 'notifications/initialized' }],
  [
    'a 2026 envelope naming 2025 under a 2026 header',
    { 'mcp-protocol-version': '2026-07-28' },
    { jsonrpc: '2.0', id: 15, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } },
  ],
  ['not JSON-RPC under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '1.0', id: 16, method: 'tools/list' }],
  ['an empty object under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, {}],
  ['null under a 2026 header', { 'mcp-protocol-version': '2026-07-28' }, null],
  [
    'a 2026 header with spaces around it',
    { 'mcp-protocol-version': ' 2026-07-28 ' },
    { jsonrpc: '2.0', id: 17, method: 'tools/list', params: { _meta: envelope } },
  ],
  ['a later revision in the header', { 'mcp-protocol-version': '2027-01-01' }, { jsonrpc: '2.0', id: 18, method: 'tools/list', params: { _meta: envelope } }],
];

describe('routing a POST to a revision', () => {
  it.each(posts)('agrees with the SDK’s isLegacyRequest on %s', async (_what, headers, body) => {
    const node = { method: 'POST', url: '/mcp', headers: { host: '127.0.0.1', 'content-type': 'application/json', ...headers }, body };
    const web = await toWebRequest({ ...node, [Symbol.asyncIterator]: async function* () {} }, body);
    expect(isLegacyPost(node as unknown as Request)).toBe(await isLegacyRequest(web, body));
  });
});
