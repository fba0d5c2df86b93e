// A configuration's signing secret (Standard Webhooks), for a manager: read it to verify deliveries,
// and rotate it; for a day after a rotation deliveries carry a signature by the old secret and by the
// new, so a receiver can switch over without refusing any. Answers are never cached on the way.
import { type Response } from 'express';
import { z } from 'zod';
import type { CredentialVault } from '../configs/credential-vault.ts';
import { rotatedSigningSecrets, signingSecretBinding } from '../configs/signing-secrets.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import { notFound } from './errors.ts';
import { addRoutes, type DeliveryRouteSpec, type RouteHandler, type RouteTarget } from './route-spec.ts';
import { apiSchemas } from './webhooks.schemas.ts';
import { configFor } from './webhooks.routes.ts';

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
    summary: 'Replace the signing secret; for 24 hours deliveries carry a signature by each of the old and the new secret',
    right: 'manage',
    success: { status: 200, schema: signingSecret, description: 'The new current secret' },
    errors: [400, 403, 404],
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
    const rotated = await deps.store.rotateSigningSecret(config.id, (current) => rotatedSigningSecrets(deps.vault, config.id, current, now));
    if (!rotated) throw notFound(`webhook configuration ${config.id}`);
    sendSecret(res, deps.vault.decrypt(rotated.current, signingSecretBinding(config.id)));
  },
};

export const addSigningSecretRoutes = (target: RouteTarget, deps: SigningSecretRouteDependencies): void => {
  addRoutes(target, signingSecretRouteSpecs, handlers, deps);
};
