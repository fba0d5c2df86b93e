// A configuration's signing secret (Standard Webhooks), for a manager: read it to verify deliveries,
// and rotate it; for a day after a rotation deliveries carry a signature by the old secret and by the
// new, so a receiver can switch over without refusing any. Answers are never cached on the way.
import { type Response } from 'express';
import { z } from 'zod';
import type { CredentialVault } from '../configs/credential-vault.ts';
import { maxSignaturesPerDelivery, rotatedSigningSecrets, RotationTooSoonError, signingSecretBinding } from '../configs/signing-secrets.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import { notFound, WebhookApiError } from './errors.ts';
import { addRoutes, type DeliveryRouteSpec, type RouteHandler, type RouteTarget } from './route-spec.ts';
import { apiSchemas } from './webhooks.schemas.ts';
import { configFor } from './config-lookup.ts';

export interface SigningSecretRouteDependencies {
  readonly store: WebhookStore;
  readonly vault: CredentialVault;
  readonly now?: () => number;
}

const signingSecret = z
  .object({
    secret: z.string().meta({ description: 'whsec_ and the base64 of the key: what a Standard Webhooks library takes to verify a delivery.' }),
  })
  .register(apiSchemas, { id: 'SigningSecret', description: "The configuration's current signing secret." });

const rotatedSigningSecret = signingSecret
  .extend({
    previousSecretSignsUntil: z.iso.datetime().meta({
      description: 'Until when the replaced secret signs deliveries too (24 hours); the next rotation may happen from then on.',
    }),
  })
  .register(apiSchemas, { id: 'RotatedSigningSecret', description: 'The new current signing secret, and how long the one it replaced still signs.' });

export const signingSecretRouteSpecs = [
  {
    operationId: 'getSigningSecret',
    method: 'get',
    path: '/v2/webhooks/:id/signing-secret',
    summary: 'The secret that signs the deliveries of this configuration (webhook-signature), for the receiver to verify them',
    right: 'manage',
    success: { status: 200, schema: signingSecret, description: 'The current secret' },
    errors: [400, 403, 404],
  },
  {
    operationId: 'rotateSigningSecret',
    method: 'post',
    path: '/v2/webhooks/:id/signing-secret/rotate',
    summary: `Replace the signing secret; for 24 hours deliveries carry a signature by each of the old and the new secret (at most ${maxSignaturesPerDelivery} signatures a delivery), and another rotation is refused (409, saying from when it may happen) until those 24 hours are over`,
    right: 'manage',
    success: { status: 200, schema: rotatedSigningSecret, description: 'The new current secret' },
    errors: [400, 403, 404, 409],
  },
] as const satisfies readonly DeliveryRouteSpec[];

type OperationId = (typeof signingSecretRouteSpecs)[number]['operationId'];
type Handler = RouteHandler<SigningSecretRouteDependencies>;

function sendSecret(res: Response, secret: string): void {
  res.set('cache-control', 'no-store');
  res.json({ secret });
}

const handlers: Record<OperationId, Handler> = {
  async getSigningSecret(req, res, deps) {
    const config = await configFor(req, res, deps, 'manage');
    sendSecret(res, deps.vault.decrypt(config.signingSecrets.current, signingSecretBinding(config.id)));
  },
  async rotateSigningSecret(req, res, deps) {
    const config = await configFor(req, res, deps, 'manage');
    const now = deps.now?.() ?? Date.now();
    let rotated;
    try {
      rotated = await deps.store.rotateSigningSecret(config.id, (current) => rotatedSigningSecrets(deps.vault, config.id, current, now));
    } catch (error) {
      if (!(error instanceof RotationTooSoonError)) throw error;
      const from = new Date(error.allowedFrom).toISOString();
      res.set('retry-after', String(Math.max(1, Math.ceil((error.allowedFrom - now) / 1000))));
      throw new WebhookApiError(
        'CONFLICT',
        `the signing secret of webhook configuration ${config.id} was rotated within the last 24 hours, and the secret that rotation replaced still signs every delivery until ${from}, so that receivers holding it keep verifying; it may be rotated again from ${from}`,
        { cause: error },
      );
    }
    if (!rotated) throw notFound(`webhook configuration ${config.id}`);
    req.log.info({ webhookConfigId: config.id }, 'signing secret rotated');
    res.set('cache-control', 'no-store');
    res.json({
      secret: deps.vault.decrypt(rotated.current, signingSecretBinding(config.id)),
      previousSecretSignsUntil: new Date(rotated.previousUntil ?? now).toISOString(),
    });
  },
};

export const addSigningSecretRoutes = (target: RouteTarget, deps: SigningSecretRouteDependencies): void => {
  addRoutes(target, signingSecretRouteSpecs, handlers, deps);
};
