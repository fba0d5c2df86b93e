// What a person does against the running stack, for npm start's readiness check, the demo and
// `npm run token`: sign in with the dev platform's scripted login, and open an MCP client session
// at the gateway with that token.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface PersonToken {
  readonly accessToken: string;
  readonly expiresIn: number;
}

/** Thrown for an answer that says what went wrong; its message is safe to print. */
class StackRequestError extends Error {
  override readonly name = 'StackRequestError';
  readonly code = 'STACK_REQUEST_FAILED';
}

/**
 * A person's token from POST /dev/token: for the gateway when `resource` is its URL, for the
 * platform API (and the webhook API, part of it) when no resource is given.
 */
export async function personToken(platformUrl: string, username: string, resource?: string): Promise<PersonToken> {
  const response = await fetch(`${platformUrl}/dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, ...(resource !== undefined && { resource }) }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; message?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    const why = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
    throw new StackRequestError(`the dev platform gave no token for ${username}: ${why}`);
  }
  return { accessToken: body.access_token, expiresIn: typeof body.expires_in === 'number' ? body.expires_in : 0 };
}

/** An MCP SDK client connected to the gateway as the holder of `token` (the current revision by default). */
export async function connectToGateway(
  mcpUrl: string,
  token: string,
  name: string,
  /** Answers a form a tool puts to the person; without it the client declares it cannot ask. */
  answerForm?: (message: string) => { readonly action: 'accept' | 'decline' | 'cancel'; readonly content?: Record<string, string | number | boolean> },
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, answerForm ? { capabilities: { elicitation: { form: {} } } } : {});
  if (answerForm) client.setRequestHandler('elicitation/create', (request) => answerForm(request.params.message));
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: { token: () => Promise.resolve(token) } }));
  return client;
}

/** Ends the client's session at the gateway (a 2025-11-25 session would otherwise stay open until it idles out) and closes it. */
export async function closeGatewaySession(client: Client | undefined): Promise<void> {
  if (!client) return;
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  await client.close();
}
