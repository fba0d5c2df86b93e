// The sign-in pages of the authorization-code flow: a plain login form for seeded users, then, the
// first time a person authorizes a client, a consent page naming the client and the host its
// redirect goes to (a client identified by a metadata document is named by its document, whose
// address the page shows). Only a client the person approved is authorized silently afterwards, so a
// newly registered client cannot get a code for someone who merely signed in before. The grant is
// exactly the scopes and resources the client asked for. Every page is sent with pageHeaders: it
// cannot be framed, cached, or made to load anything but its own stylesheet.
import { timingSafeEqual } from 'node:crypto';
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { isLoopbackHost } from '@platform/tool-sdk/internal';
import { escapeHtml } from './authorization-server.ts';
import type { ClientApprovals } from './client-approvals.ts';
import { isClientIdUrl } from './clients/client-id-url.ts';
import { pageHeaders, pageStyleElement, redirectOrigin } from './page-security.ts';
import type { World } from '../world/world.ts';

function loginPage(uid: string, clientName: string, error?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the dev platform</title>
${pageStyleElement}</head>
<body><h1>Sign in</h1><p>to continue to <strong>${escapeHtml(clientName)}</strong></p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form></body></html>`;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Grants the client exactly what it asked for, and finishes the consent step. */
async function grantAsked(provider: Provider, req: Request, res: Response, details: Details, accountId: string): Promise<void> {
  const clientId = String(details.params.client_id);
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId }))
    : new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

interface ConsentAbout {
  readonly clientName: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly username: string;
}

/** Who the client says it is: a registered client by its name and id, a document's by its name and the document's address. */
function clientIdentity(about: ConsentAbout): string {
  const name = `<strong>${escapeHtml(about.clientName)}</strong>`;
  if (!isClientIdUrl(about.clientId)) return `The application ${name} (client <code>${escapeHtml(about.clientId)}</code>)`;
  const host = new URL(about.clientId).host;
  return `The application ${name}, as its document at <strong>${escapeHtml(host)}</strong> (<code>${escapeHtml(about.clientId)}</code>) describes it,`;
}

function consentPage(uid: string, about: ConsentAbout): string {
  const redirect = URL.canParse(about.redirectUri) ? new URL(about.redirectUri) : undefined;
  const redirectHost = redirect?.host ?? '';
  // A loopback redirect proves nothing about who listens there (MCP: warn for localhost redirects).
  const loopbackWarning =
    redirect && isLoopbackHost(redirect.hostname)
      ? `<p class="warning">${escapeHtml(redirectHost)} is a program on this computer. Any program here can claim to be ${escapeHtml(about.clientName)}: allow it only if you started it yourself, just now.</p>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Allow access?</title>
${pageStyleElement}</head>
<body><h1>Allow <strong>${escapeHtml(about.clientName)}</strong>?</h1>
<p>${clientIdentity(about)} asks to act on the platform as <strong>${escapeHtml(about.username)}</strong>.</p>
<p>If you allow it, you will be sent back to <strong>${escapeHtml(redirectHost)}</strong>. Allow it only if you started this sign-in from that application.</p>
${loopbackWarning}
<form method="post" action="/interaction/${escapeHtml(uid)}/consent">
<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form></body></html>`;
}

/** Sends `html` as a page whose forms may lead to `redirectUri`'s origin. */
function sendPage(res: Response, html: string, redirectUri: unknown, status = 200): void {
  res
    .status(status)
    .set(pageHeaders({ formTargets: redirectOrigin(redirectUri) }))
    .type('html')
    .send(html);
}

export function createInteractionRoutes(provider: Provider, world: World, approvals: ClientApprovals): Router {
  const router = Router();
  // Every answer under /interaction, redirects and refusals too, before a page sets its own form targets.
  router.use('/interaction', (_req, res, next) => {
    res.set(pageHeaders());
    next();
  });

  router.get('/interaction/:uid', async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    const clientId = String(params.client_id);
    const client = await provider.Client.find(clientId);
    if (prompt.name === 'login') {
      sendPage(res, loginPage(details.uid, client?.clientName ?? clientId), params.redirect_uri);
      return;
    }
    if (prompt.name === 'consent' && session) {
      if (approvals.has(session.accountId, clientId)) {
        await grantAsked(provider, req, res, details, session.accountId);
        return;
      }
      const user = world.user(session.accountId);
      const about = { clientName: client?.clientName ?? clientId, clientId, redirectUri: String(params.redirect_uri), username: user?.username ?? '' };
      sendPage(res, consentPage(details.uid, about), params.redirect_uri);
      return;
    }
    res.status(400).type('text').send(`Unexpected sign-in step: ${prompt.name}`);
  });

  router.post('/interaction/:uid/consent', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name !== 'consent' || !session) {
      res.status(400).type('text').send('This sign-in step does not ask for consent.');
      return;
    }
    const decision = (req.body as { decision?: unknown }).decision;
    if (decision !== 'approve') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The person did not allow the application.' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    approvals.add(session.accountId, String(params.client_id));
    await grantAsked(provider, req, res, details, session.accountId);
  });

  router.post('/interaction/:uid/login', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    const body = req.body as { username?: unknown; password?: unknown };
    const user = typeof body.username === 'string' ? world.userByUsername(body.username.trim()) : undefined;
    if (!user || typeof body.password !== 'string' || !constantTimeEqual(body.password, user.password)) {
      const client = await provider.Client.find(String(details.params.client_id));
      sendPage(
        res,
        loginPage(details.uid, client?.clientName ?? String(details.params.client_id), 'Wrong username or password.'),
        details.params.redirect_uri,
        401,
      );
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
  });

  return router;
}

/**
 * Sign-in failures as a page for the person in the browser, never with internals: an expired or
 * unknown interaction (a stale link, a lost cookie) is theirs to retry; anything else is ours.
 */
export const interactionErrorPage: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  const status = (error as { status?: unknown }).status;
  const clientError = typeof status === 'number' && status >= 400 && status < 500;
  if (!clientError) req.log.error({ err: error }, 'sign-in failed');
  const message = clientError
    ? 'This sign-in link has expired or was already used. Go back to your application and start signing in again.'
    : 'Something went wrong on the platform. Please try again.';
  res
    .status(clientError ? status : 500)
    .set(pageHeaders())
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in</title>${pageStyleElement}</head><body><h1>Sign-in could not continue</h1><p>${escapeHtml(message)}</p></body></html>`,
    );
};

/** Compares passwords without revealing through timing how much of them matched. */
function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
