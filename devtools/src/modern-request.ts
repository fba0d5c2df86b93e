// One raw 2026-07-28 MCP request, as a stateless client sends it (the standard headers, the
// per-request envelope), for tests that need what the MCP SDK's client does not send: the tasks
// extension's methods, a chosen replica, a hand-made round of answers. And one raw request of a
// 2025-11-25 session, for tests that send it to a replica other than the one holding the session.
export const tasksExtension = 'io.modelcontextprotocol/tasks';

/** One raw 2026-07-28 request at `url`, declaring the tasks extension (and form elicitation) unless told not to: its JSON-RPC answer. */
export async function modernRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  options: { readonly tasks?: boolean } = {},
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
  const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: { form: {} },
            ...(options.tasks !== false && { extensions: { [tasksExtension]: {} } }),
          },
        },
      },
    }),
  });
  const text = await response.text();
  const messages = text.startsWith('{') ? [text] : text.split('\n').flatMap((line) => (line.startsWith('data:') ? [line.slice(5)] : []));
  return JSON.parse(messages.at(-1) ?? '{}') as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** One raw 2025-11-25 `tools/list` of the session `sessionId` at `url` (a replica of the test's choosing): the response as it came. */
export const sessionRequest = (url: string, token: string, sessionId: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
