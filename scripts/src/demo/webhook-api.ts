// What the demo reads of a webhook over the REST API, as a manager would (its attempt log, its
// signing secret), and the check a receiver makes of a delivery's Standard Webhooks signature.
import { Webhook } from 'standardwebhooks';
import type { ReceivedDelivery } from './receiver.ts';

/** Thrown by a step that did not see what it shows; its message says what was seen instead. */
export class DemoStepFailed extends Error {
  override readonly name = 'DemoStepFailed';
  readonly code = 'DEMO_STEP_FAILED';
}

/** GET of a webhook's sub-resource at the first webhook API, as a manager with `token`. */
async function readWebhook(webhookApiUrl: string, token: string, webhookId: string, path: string, what: string): Promise<unknown> {
  const response = await fetch(`${webhookApiUrl}/v2/webhooks/${encodeURIComponent(webhookId)}/${path}`, {
    headers: { authorization: `Bearer ${token}`, authversion: 'V0.0.1', accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new DemoStepFailed(`${what} answered ${response.status}`);
  return response.json();
}

export interface DemoAttempt {
  readonly outcome: string;
  readonly responseStatus: number | null;
  readonly error: string | null;
}

export async function attemptLog(webhookApiUrl: string, token: string, webhookId: string): Promise<DemoAttempt[]> {
  return (await readWebhook(webhookApiUrl, token, webhookId, 'deliveries', 'the attempt log')) as DemoAttempt[];
}

/** The webhook's signing secret (GET /v2/webhooks/{id}/signing-secret). */
export async function signingSecret(webhookApiUrl: string, token: string, webhookId: string): Promise<string> {
  return ((await readWebhook(webhookApiUrl, token, webhookId, 'signing-secret', 'the signing secret')) as { secret: string }).secret;
}

/** Whether a delivery's webhook-signature verifies with `secret` over the body as it arrived (and its timestamp is recent). */
export function verifiesWith(secret: string, delivery: ReceivedDelivery): boolean {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
  try {
    new Webhook(secret).verify(delivery.raw, headers);
    return true;
  } catch {
    return false;
  }
}
