// The sign-in pages cannot be framed: every page a person sees on the way (the login form, the
// consent page, the error pages) says X-Frame-Options DENY and CSP frame-ancestors 'none', is not
// to be cached, and may load nothing but its own stylesheet. Proved in a real browser (Debian's
// chromium, headless, driven by playwright-core): a page of another origin that frames the consent
// page gets nothing, while the person signs in and allows the client through the real pages with
// no policy violation on the way.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage } from 'playwright-core';
import { listen, startedForTests, type Listening } from '@platform/tool-sdk/testing';
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { browser as scriptedBrowser, signIn } from './headless-sign-in.ts';
import { startPlatform, type RunningPlatform } from './harness.ts';
import { pkceAuthorization } from './pkce-authorization.ts';

const chromiumPath = '/usr/bin/chromium';

/** Debian's chromium, headless, in a fresh profile that nothing else shares; `close` ends it and removes the profile. */
async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(chromiumPath)) throw new Error(`no browser at ${chromiumPath}: install Debian's chromium package (apt-get install chromium; .ci/run does)`);
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

interface Setup extends Listening {
  readonly platform: RunningPlatform;
  /** The client's redirect URI (served by this test). */
  readonly redirectUri: string;
  /** Another origin's page, which frames whatever its `?src=` names. */
  readonly framer: Listening;
}

async function startSetup(): Promise<Setup> {
  const platform = await startPlatform();
  const callback = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Signed in</title><p>You may close this page.</p>');
  });
  const framer = await listen((req, res) => {
    const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Win a prize</title><iframe id="target" src="${src.replaceAll('"', '&quot;')}" width="600" height="400"></iframe>`);
  });
  return {
    ...callback,
    platform,
    redirectUri: `${callback.url}/callback`,
    framer,
    async close() {
      await Promise.all([platform.close(), callback.close(), framer.close()]);
    },
  };
}

async function registerClient(setup: Setup): Promise<string> {
  const response = await fetch(`${setup.platform.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Browser test client',
      redirect_uris: [setup.redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  return ((await response.json()) as { client_id: string }).client_id;
}

async function authorization(setup: Setup, clientId: string): Promise<{ url: URL; verifier: string; client: oauth.Configuration }> {
  return pkceAuthorization(setup.platform.issuer, clientId, setup.redirectUri);
}

const policyViolations = (messages: readonly ConsoleMessage[]) =>
  messages.map((message) => message.text()).filter((text) => /Content Security Policy|Refused to/i.test(text));

describe('the sign-in pages in a real browser', () => {
  const setup = startedForTests(startSetup);

  it('refuse to be framed by another origin, and sign the person in and allow the client through the real pages', { timeout: 60_000 }, async () => {
    const clientId = await registerClient(setup());
    const { url, verifier, client } = await authorization(setup(), clientId);
    const browser = await launchChromium();
    const { context } = browser;
    try {
      const page = await context.newPage();
      const messages: ConsoleMessage[] = [];
      page.on('console', (message) => messages.push(message));

      const login = await page.goto(url.href);
      expect(login?.url()).toMatch(/\/interaction\//);
      expect(await login?.allHeaders()).toMatchObject({ 'x-frame-options': 'DENY', 'cache-control': 'no-store' });
      // The page's own stylesheet applies under its policy.
      expect(await page.evaluate<string>('getComputedStyle(document.body).fontFamily')).toContain('system-ui');
      await page.fill('#username', 'oscar');
      await page.fill('#password', 'oscar-dev-password');
      await Promise.all([page.waitForURL(/\/interaction\//), page.click('button[type=submit]')]);
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      const consentUrl = page.url();

      // Another origin frames the consent page, with the person's cookies: the platform answers, the browser shows nothing.
      const framing = await context.newPage();
      const framingMessages: ConsoleMessage[] = [];
      framing.on('console', (message) => framingMessages.push(message));
      const answered = framing.waitForResponse((response) => response.url() === consentUrl);
      await framing.goto(`${setup().framer.url}/?src=${encodeURIComponent(consentUrl)}`);
      expect((await answered).status()).toBe(200);
      await expect.poll(() => framingMessages.map((message) => message.text()).join('\n'), { timeout: 10_000 }).toMatch(/frame-ancestors 'none'/);
      const framed = framing.frames().find((frame) => frame !== framing.mainFrame());
      expect(framed).toBeDefined();
      expect(await framed?.locator('button').count()).toBe(0);
      expect(framed?.url()).not.toBe(consentUrl);

      // The person allows the client on the real page, and the browser is sent to the client with a code.
      await Promise.all([page.waitForURL((current) => current.href.startsWith(setup().redirectUri)), page.getByRole('button', { name: 'Allow' }).click()]);
      const tokens = await oauth.authorizationCodeGrant(client, new URL(page.url()), { pkceCodeVerifier: verifier });
      expect(tokens.access_token).toBeTruthy();
      expect(policyViolations(messages)).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('are sent, every one, with the headers that forbid framing and caching and allow only what the page uses', async () => {
    const { platform, redirectUri } = setup();
    const clientId = await registerClient(setup());
    const { url } = await authorization(setup(), clientId);
    const callbackOrigin = new URL(redirectUri).origin;
    const visit = scriptedBrowser();
    const pages: [string, Response][] = [];
    const record = async (name: string, response: Promise<Response>) => {
      const answer = await response;
      pages.push([name, answer]);
      return answer;
    };
    const toLogin = await record('the authorization request', visit(url.href));
    const loginUrl = new URL(toLogin.headers.get('location') ?? '', platform.issuer).href;
    await record('the login form', visit(loginUrl));
    await record(
      'the login form, wrong password',
      visit(`${loginUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=oscar&password=nope' }),
    );
    const consent = await signIn(url.href, { username: 'oscar', password: 'oscar-dev-password' }, { consent: 'stop', visit });
    expect(consent.kind).toBe('consent');
    await record('an expired sign-in link', fetch(`${platform.issuer}/interaction/no-such-interaction`));
    await record('an unknown client', fetch(`${platform.issuer}/auth?client_id=nobody&response_type=code&redirect_uri=${encodeURIComponent(redirectUri)}`));

    for (const [name, response] of pages) {
      expect(response.headers.get('x-frame-options'), name).toBe('DENY');
      expect(response.headers.get('cache-control'), name).toBe('no-store');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy, name).toContain("frame-ancestors 'none'");
      expect(policy, name).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action [^;]+; frame-ancestors 'none'; base-uri 'none'$/);
    }
    const formAction = (name: string) =>
      /form-action ([^;]+)/.exec(pages.find(([page]) => page === name)?.[1].headers.get('content-security-policy') ?? '')?.[1];
    // Forms post to the platform, and the redirect after them goes to the client: nowhere else.
    expect(formAction('the login form')).toBe(`'self' ${callbackOrigin}`);
    expect(formAction('an expired sign-in link')).toBe("'none'");
    expect(formAction('an unknown client')).toBe("'none'");
  });
});
