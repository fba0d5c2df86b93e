// Real OAuth MCP clients against the gateway and the dev platform, with nothing handed to them but
// the MCP URL: the SDK client with an OAuth client provider, and mcp-remote run headless. Each
// finds the authorization server from the gateway's 401 (RFC 9728), registers itself (RFC 7591),
// signs a seeded person in through the login form (authorization code + PKCE), and calls tools.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider, type OAuthTokens } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { closedPort } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { MemoryOAuthProvider } from '@platform/dev-platform/testing/oauth-client';
import { signIn, type Credentials } from '@platform/dev-platform/testing/sign-in';
import { eras, stackForTests, type Era } from './harness.ts';

const stack = stackForTests();

const oscar: Credentials = { username: 'oscar', password: 'oscar-dev-password' };
const wrongPassword: Credentials = { username: 'oscar', password: 'not-oscar-dev-password' };

/** An interactive client that registers itself. */
const memoryOAuthProvider = () => new MemoryOAuthProvider({ redirectUrl: 'http://127.0.0.1:45678/callback', clientName: 'OAuth clients test' });

/** A transport whose every request (the MCP endpoint's and the OAuth flow's) is recorded as "METHOD url". */
function recordedTransport(provider: OAuthClientProvider, seen: string[]): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(stack().mcpUrl), {
    authProvider: provider,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push(`${init?.method ?? 'GET'} ${String(input)} ${response.status}`);
      return response;
    },
  });
}

const newClient = (era: Era) =>
  new Client({ name: 'oauth-clients-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});

/** What every part of the stack logged (the gateway, the platform, the webhook tool service). */
const stackLogs = () => [...stack().logs, ...stack().platform.logs, ...(stack().tools?.logs ?? [])].join('');

describe.each(eras)('the MCP SDK client with an OAuth client provider, on the %s revision', (era) => {
  it('finds the platform from the 401, registers, signs oscar in with PKCE and calls tools with a token for the MCP server', async () => {
    const provider = memoryOAuthProvider();
    const seen: string[] = [];
    const first = recordedTransport(provider, seen);
    await expect(newClient(era).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    const { issuer, mcpUrl } = stack();
    const origin = new URL(mcpUrl).origin;
    expect(seen).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^POST ${mcpUrl} 401$`)),
        `GET ${origin}/.well-known/oauth-protected-resource/mcp 200`,
        `GET ${issuer}/.well-known/oauth-authorization-server 200`,
        `POST ${issuer}/reg 201`,
      ]),
    );
    expect(provider.information?.client_id).toBeDefined();
    const authorizationUrl = provider.authorizationUrl;
    if (!authorizationUrl) throw new Error('the client was not sent to sign in');
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${issuer}/auth`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl);

    const outcome = await signIn(authorizationUrl.href, oscar);
    if (outcome.kind !== 'redirected') throw new Error(`the sign-in was refused (${JSON.stringify(outcome)})`);
    await first.finishAuth(provider.callbackParams(outcome.callback));
    expect(seen.at(-1)).toBe(`POST ${issuer}/token 200`);

    const token = provider.saved?.access_token ?? '';
    expect(decodeJwt(token)).toMatchObject({ sub: 'u-oscar', aud: mcpUrl, iss: issuer, client_id: provider.information?.client_id });

    const client = newClient(era);
    await client.connect(recordedTransport(provider, seen));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'list_webhooks', 'create_webhook']));
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.isError).toBeFalsy();
      expect(whoami.structuredContent).toMatchObject({ userId: 'u-oscar' });
      const listed = await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });
      expect(listed.isError).toBeFalsy();
    } finally {
      await client.close();
    }

    const logs = stackLogs();
    expect(logs).toContain('tool call');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(token.split('.')[2]);
    expect(logs).not.toContain(outcome.callback.searchParams.get('code'));
  });

  it('gets no token when the password is wrong, and the gateway still refuses it', async () => {
    const provider = memoryOAuthProvider();
    const transport = recordedTransport(provider, []);
    await expect(newClient(era).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await signIn(provider.authorizationUrl?.href ?? '', wrongPassword)).toEqual({ kind: 'refused', status: 401 });
    expect(provider.saved).toBeUndefined();
    await expect(newClient(era).connect(recordedTransport(provider, []))).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

const require = createRequire(import.meta.url);
const mcpRemoteProxy = join(dirname(require.resolve('mcp-remote/package.json')), 'dist/proxy.js');
// The dev platform's headless sign-in as a program: the BROWSER mcp-remote opens.
const headlessBrowser = require.resolve('@platform/dev-platform/testing/headless-browser');

interface HeadlessMcpRemote {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Its throwaway HOME, which holds its storage (MCP_REMOTE_CONFIG_DIR) and the browser's report. */
  readonly home: string;
  readonly configDir: string;
  /** One line per time mcp-remote opened the browser. */
  browserReports(): Record<string, unknown>[];
  /** What mcp-remote wrote to stderr. */
  stderr(): string;
  /** Closes the client and makes sure mcp-remote has ended (one waiting for a callback ignores the end of stdin). */
  close(): Promise<void>;
}

/**
 * mcp-remote as an agent desktop runs it (`mcp-remote <MCP URL> <callback port>`), in a throwaway
 * home and config directory, with BROWSER set to the headless browser: mcp-remote opens the
 * authorization URL with the `open` package, whose bundled xdg-open finds no desktop and runs
 * $BROWSER with the URL.
 */
function headlessMcpRemote(credentials: Credentials, callbackPort: number, home = mkdtempSync(join(tmpdir(), 'mcp-remote-'))): HeadlessMcpRemote {
  const configDir = join(home, 'config');
  const report = join(home, 'browser-report.jsonl');
  // xdg-open runs `$BROWSER "$url"` word-split, so it gets a script of its own rather than a command line.
  const browser = join(home, 'browser');
  writeFileSync(browser, `#!/bin/sh\nexec '${process.execPath}' '${headlessBrowser}' "$1"\n`, { mode: 0o755 });
  const stderr: string[] = [];
  let pid: number | undefined;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mcpRemoteProxy, stack().mcpUrl, String(callbackPort)],
    // Only what it needs: no DISPLAY, desktop session or D-Bus address that would send xdg-open to a real browser.
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      MCP_REMOTE_CONFIG_DIR: configDir,
      BROWSER: browser,
      HEADLESS_BROWSER_USERNAME: credentials.username,
      HEADLESS_BROWSER_PASSWORD: credentials.password,
      HEADLESS_BROWSER_REPORT: report,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    // Kept from its first words: a client whose connect failed has already let go of the process.
    pid ??= transport.pid ?? undefined;
    stderr.push(chunk.toString());
  });
  const client = new Client({ name: 'agent-desktop', version: '1.0.0' });
  return {
    client,
    transport,
    home,
    configDir,
    browserReports: () => {
      try {
        return readFileSync(report, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      } catch {
        return [];
      }
    },
    stderr: () => stderr.join(''),
    async close() {
      await client.close();
      if (pid === undefined) return;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // It had ended already.
      }
    },
  };
}

/** The tokens mcp-remote stored for the server, if any. */
function storedTokens(configDir: string): OAuthTokens | undefined {
  const store = join(configDir, 'mcp-remote-v1');
  const file = readdirSync(store).find((name) => name.endsWith('_tokens.json'));
  return file === undefined ? undefined : (JSON.parse(readFileSync(join(store, file), 'utf8')) as OAuthTokens);
}

/** Connects through `remote`, checks the tools oscar sees and calls whoami as him. */
async function callsToolsAsOscar(remote: HeadlessMcpRemote): Promise<void> {
  try {
    // Under the test's timeout, so that a sign-in that never completes fails here, with mcp-remote's story, and is stopped.
    await remote.client.connect(remote.transport, { timeout: 10_000 });
    const { tools } = await remote.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'list_webhooks', 'create_webhook']));
    const whoami = await remote.client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.isError).toBeFalsy();
    expect(whoami.structuredContent).toMatchObject({ userId: 'u-oscar' });
  } catch (error) {
    throw new Error(`through mcp-remote: ${String(error)}; browser ${JSON.stringify(remote.browserReports())}; stderr:\n${remote.stderr()}`, { cause: error });
  } finally {
    await remote.close();
  }
}

describe('mcp-remote, headless', () => {
  it('signs oscar in through the BROWSER it opens, proxies tools over stdio, and reuses the token next time', async () => {
    const port = await closedPort();
    const remote = headlessMcpRemote(oscar, port);
    await callsToolsAsOscar(remote);
    expect(remote.browserReports()).toEqual([expect.objectContaining({ kind: 'redirected', callbackStatus: 200 })]);
    const token = storedTokens(remote.configDir)?.access_token ?? '';
    expect(decodeJwt(token)).toMatchObject({ sub: 'u-oscar', aud: stack().mcpUrl, iss: stack().issuer });

    // The agent desktop starts it again: the stored token is used, and no browser opens.
    const again = headlessMcpRemote(oscar, port, remote.home);
    await callsToolsAsOscar(again);
    expect(again.browserReports()).toHaveLength(1);

    const logs = stackLogs() + remote.stderr() + again.stderr();
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(token.split('.')[2]);
  });

  it('never connects when the password is wrong', async () => {
    const remote = headlessMcpRemote(wrongPassword, await closedPort());
    try {
      // mcp-remote waits for a callback that never comes (as it would for a person who gave up);
      // the client stops waiting after a few seconds.
      await expect(remote.client.connect(remote.transport, { timeout: 4_000 })).rejects.toThrow(/timed out/i);
      expect(remote.browserReports()).toEqual([{ kind: 'refused', status: 401 }]);
      expect(storedTokens(remote.configDir)).toBeUndefined();
    } finally {
      await remote.close();
    }
  });
});
