import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createLogger } from '@platform/tool-sdk';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { createApp, type AppDependencies } from './app.ts';
import { CredentialVault } from '../configs/credential-vault.ts';
import { createOpenApiDocument, openApiPath } from './openapi.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import type { WebhookSender } from '../delivery/outgoing.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';

/** Every method and path the Express app routes, read from its router. */
function routesOf(app: Express): string[] {
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
    handle?: { stack?: Layer[] };
  }
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) for (const method of Object.keys(layer.route.methods)) found.push(`${method} ${layer.route.path}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

/** The app as these tests serve it: no store, queue or caller behind it; `optional` adds routes (ingest, metrics). */
function testApp(optional: Pick<AppDependencies, 'ingest' | 'metrics'> = {}): Express {
  return createApp({
    store: {} as WebhookStore,
    queue: {} as DeliveryQueue,
    vault: new CredentialVault([{ id: 'k', key: Buffer.alloc(32) }]),
    checkCaller: () => Promise.resolve({ ok: false, error: undefined, description: 'no caller in this test' }),
    devices: () => Promise.resolve(undefined),
    logger: createLogger({ name: 'test', level: 'silent' }),
    publicUrl: 'http://127.0.0.1:4100',
    sender: {} as WebhookSender,
    ...optional,
  });
}

/** The app with every optional route: ingest and metrics too. */
function fullApp(): Express {
  return testApp({
    ingest: { token: 'ingest-token-of-this-test', maxPoints: 10, maxBodyBytes: 1024 },
    metrics: (_req, res) => {
      res.end();
    },
  });
}

/** Every `method path` of the tables in docs/webhooks.md: a row that starts with a method and a path in backticks. */
function documentedCalls(): string[] {
  const page = readFileSync(resolve(import.meta.dirname, '../../../docs/webhooks.md'), 'utf8');
  return [...page.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/[^`?]*)(?:\?[^`]*)?` \|/gm)].map(([, method = '', path = '']) => `${method.toLowerCase()} ${path}`);
}

describe('every call of the service', () => {
  const document = createOpenApiDocument('http://127.0.0.1:4100') as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const served = routesOf(fullApp()).map((route) => {
    const [method = '', path = ''] = route.split(' ');
    return `${method} ${openApiPath(path)}`;
  });

  it('is routed, in the endpoint tables of docs/webhooks.md and in the OpenAPI document, and nothing else is', () => {
    expect(served).toContain('post /internal/telemetry');
    expect(served).toContain('post /v2/webhooks/{id}/signing-secret/rotate');
    expect(new Set(served).size).toBe(served.length);
    expect([...documentedCalls()].sort()).toEqual([...served].sort());
    const inDocument = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(inDocument.sort()).toEqual([...served].sort());
  });

  it('documents the deliveries by state with the states it takes and the header that marks a deleted configuration', () => {
    const list = document.paths['/v2/webhooks/{id}/deliveries/by-state']?.get as unknown as {
      parameters: { name?: string; schema?: { type?: string; pattern?: string } }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    const state = list.parameters.find((p) => p.name === 'state')?.schema;
    expect(state?.type).toBe('string');
    const pattern = new RegExp(state?.pattern ?? '$^');
    for (const ok of ['waiting', 'waiting,retrying', 'delivered,dropped,failed']) expect(ok).toMatch(pattern);
    for (const bad of ['pending', 'waiting,', '']) expect(bad).not.toMatch(pattern);
    for (const path of ['/v2/webhooks/{id}/deliveries', '/v2/webhooks/{id}/deliveries/by-state']) {
      const ok = (document.paths[path]?.get as unknown as { responses: Record<string, { headers?: Record<string, unknown> }> }).responses['200'];
      expect(ok?.headers?.['Webhook-Config-Deleted-At'], path).toEqual({ $ref: '#/components/headers/WebhookConfigDeletedAt' });
    }
  });

  it('documents ingest with a security scheme of its own, not a person’s token', () => {
    const ingest = document.paths['/internal/telemetry']?.post as { security: unknown[]; requestBody: unknown; responses: Record<string, unknown> };
    expect(ingest.security).toEqual([{ ingestToken: [] }]);
    expect(JSON.stringify(ingest.requestBody)).toContain('"deviceId"');
    expect(Object.keys(ingest.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '409', '413']));
  });

  it('gives every integer a lower bound that means something (no -9007199254740991) and every duration a minimum of 0', () => {
    const integers: [string, Record<string, unknown>][] = [];
    const walk = (value: unknown, at: string) => {
      if (Array.isArray(value))
        value.forEach((item, i) => {
          walk(item, `${at}/${i}`);
        });
      else if (value !== null && typeof value === 'object') {
        const schema = value as Record<string, unknown>;
        if (schema.type === 'integer') integers.push([at, schema]);
        if (/durationMs$/.test(at)) expect(schema.minimum, at).toBe(0);
        for (const [key, item] of Object.entries(schema)) walk(item, `${at}/${key}`);
      }
    };
    walk(document, '');
    expect(integers.length).toBeGreaterThan(15);
    for (const [at, schema] of integers) {
      const lower = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined;
      expect(lower, at).toBeGreaterThanOrEqual(0);
    }
    const attempt = (document as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas
      .DeliveryAttempt?.properties;
    expect(attempt?.attempt).toMatchObject({ type: 'integer', minimum: 0 });
    expect(JSON.stringify(attempt?.responseStatus)).toContain('"minimum":100,"maximum":599');
  });

  it('states the Location header of every 201', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const created = (operation as { responses: Record<string, { headers?: Record<string, unknown> }> }).responses['201'];
        if (created) expect(created.headers?.Location, `${method} ${path}`).toEqual({ $ref: '#/components/headers/Location' });
      }
    }
  });
});

describe('the OpenAPI document', () => {
  const document = createOpenApiDocument('http://127.0.0.1:4100') as {
    openapi: string;
    components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; requestBody?: unknown }>>;
  };

  it('passes an OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(createOpenApiDocument('http://127.0.0.1:4100'));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)];
    expect(refs.length).toBeGreaterThan(12);
    const components = (document as unknown as { components: Record<string, Record<string, unknown>> }).components;
    for (const [, kind = '', name = ''] of refs) expect(components[kind]?.[name], `${kind}/${name}`).toBeDefined();
    expect(JSON.stringify(document)).not.toContain('#/$defs');
  });

  it('is OpenAPI 3.1 and lists every route the service serves under /v2/webhooks', () => {
    const app = testApp();
    const served = routesOf(app).filter((r) => r.includes('/v2/webhooks'));
    expect(served).toHaveLength(20);
    expect(document.openapi).toBe('3.1.0');
    for (const route of served) {
      const [method = '', path = ''] = route.split(' ');
      expect(document.paths[openApiPath(path)]?.[method], route).toBeDefined();
    }
  });

  it('describes bodies from the validation schemas and documents the error statuses', () => {
    const create = document.paths['/v2/webhooks']?.post;
    expect(JSON.stringify(create?.requestBody)).toContain('#/components/schemas/WebhookConfigInput');
    const input = document.components.schemas.WebhookConfigInput;
    expect(JSON.stringify(input?.properties.name)).toContain('"maxLength":255');
    expect(input?.required?.sort()).toEqual(['deliveryMode', 'name', 'url']);
    expect(Object.keys(create?.responses ?? {})).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '503']));
    expect(Object.keys(document.paths['/v2/webhooks/{id}/devices/{deviceId}']?.post?.responses ?? {})).toContain('409');
    // A configuration in a response never has a credential field.
    expect(JSON.stringify(document.paths['/v2/webhooks/{id}']?.get?.responses['200'])).toContain('#/components/schemas/WebhookConfig"');
    const properties = Object.keys(document.components.schemas.WebhookConfig?.properties ?? {});
    expect(properties).toContain('authType');
    expect(properties).not.toContain('authPayload');
  });

  it('documents the signing secret and its rotation, and every delivery request with its Standard Webhooks headers', () => {
    for (const [path, method, schema] of [
      ['/v2/webhooks/{id}/signing-secret', 'get', 'SigningSecret'],
      ['/v2/webhooks/{id}/signing-secret/rotate', 'post', 'RotatedSigningSecret'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      expect(JSON.stringify(operation?.responses['200'])).toContain(`#/components/schemas/${schema}"`);
    }
    expect(Object.keys(document.paths['/v2/webhooks/{id}/signing-secret/rotate']?.post?.responses ?? {})).toContain('409');
    expect(document.components.schemas.RotatedSigningSecret?.required).toEqual(['secret', 'previousSecretSignsUntil']);
    const delivery = JSON.stringify((document as unknown as { webhooks: Record<string, unknown> }).webhooks);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Webhook-Retry-Count']) expect(delivery).toContain(`"name":"${header}"`);
  });

  it('says which device and connection each delivered point came from, in Point and in every one of Points', () => {
    const envelope = (document as unknown as { webhooks: { telemetryDelivery: { post: { requestBody: { content: Record<string, { schema: unknown }> } } } } })
      .webhooks.telemetryDelivery.post.requestBody.content['application/json']?.schema as {
      properties: Record<string, { required?: string[]; properties?: Record<string, unknown>; items?: { required: string[] } }>;
    };
    for (const point of [envelope.properties.Point, envelope.properties.Points?.items]) {
      expect(point?.required).toEqual(['Measurement', 'Fields', 'Tags', 'UtcTimestamp', 'DeviceId', 'ConnectionTag']);
    }
    expect(envelope.properties.Point?.properties?.DeviceId).toMatchObject({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  });

  it('documents the attempt log with its filters and fixed pages, the retry and the resend with their 202 and 409', () => {
    const list = document.paths['/v2/webhooks/{id}/deliveries']?.get as unknown as {
      parameters: { name?: string; required?: boolean; schema?: Record<string, unknown> }[];
      responses: Record<string, unknown>;
    };
    const parameter = (name: string) => list.parameters.find((p) => p.name === name);
    expect(parameter('outcome')).toMatchObject({ in: 'query', required: false, schema: { enum: ['delivered', 'retrying', 'dropped', 'failed'] } });
    expect(parameter('limit')?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(JSON.stringify(list.responses['200'])).toContain('#/components/schemas/DeliveryAttempt"');
    expect(JSON.stringify(list.responses['200'])).toContain('#/components/headers/Link');
    expect(Object.keys(document.components.schemas.DeliveryAttempt?.properties ?? {}).sort()).toEqual([
      'attempt',
      'deliveryId',
      'durationMs',
      'error',
      'nextAttemptAt',
      'outcome',
      'pointCount',
      'responseBody',
      'responseStatus',
      'startedAt',
      'test',
      'webhookId',
    ]);
    expect(parameter('since')).toMatchObject({ in: 'query', required: false, schema: { type: 'string', format: 'date-time' } });
    const retry = document.paths['/v2/webhooks/{id}/deliveries/{deliveryId}/retry']?.post;
    expect(Object.keys(retry?.responses ?? {})).toEqual(expect.arrayContaining(['202', '403', '404', '409']));
    expect(JSON.stringify(retry?.responses['202'])).toContain('#/components/schemas/RetriedDelivery"');
    const resend = document.paths['/v2/webhooks/{id}/deliveries/{deliveryId}/resend']?.post;
    expect(Object.keys(resend?.responses ?? {})).toEqual(expect.arrayContaining(['202', '403', '404', '409']));
    expect(JSON.stringify(resend?.responses['202'])).toContain('#/components/schemas/ResentDelivery"');
    // The configurations' companyId stays documented as the number it must be.
    expect(JSON.stringify(document.paths['/v2/webhooks']?.get)).toContain(
      '{"name":"companyId","in":"query","required":true,"schema":{"type":"integer","minimum":1}}',
    );
  });

  it('documents a configuration’s status, the test delivery with what it answers, and the recovery of deliveries', () => {
    const schemas = document.components.schemas;
    expect(schemas.WebhookConfig?.properties.status).toMatchObject({ enum: ['Active', 'Disabled'] });
    expect(Object.keys(schemas.WebhookConfig?.properties ?? {})).toEqual(expect.arrayContaining(['disabledReason', 'disabledAt', 'rateLimitPerSecond']));
    expect(schemas.WebhookConfig?.properties.ordering).toMatchObject({ enum: ['None', 'PerDevice'] });
    expect(schemas.WebhookConfigInput?.properties.ordering).toMatchObject({ enum: ['None', 'PerDevice'] });
    expect(schemas.WebhookConfigInput?.properties.rateLimitPerSecond).toMatchObject({
      anyOf: [{ type: 'integer', minimum: 1, maximum: 10_000 }, { type: 'null' }],
    });
    expect(schemas.WebhookConfigUpdate?.properties.status).toMatchObject({ enum: ['Active', 'Disabled'] });
    expect(schemas.WebhookConfigInput?.properties.status).toBeUndefined();
    const test = document.paths['/v2/webhooks/{id}/test']?.post;
    expect(test?.operationId).toBe('sendTestDelivery');
    expect(JSON.stringify(test?.responses['200'])).toContain('#/components/schemas/TestDeliveryResult');
    expect(Object.keys(schemas.TestDeliveryResult?.properties ?? {}).sort()).toEqual(['delivered', 'deliveryId', 'durationMs', 'error', 'status', 'webhookId']);
    const recover = document.paths['/v2/webhooks/{id}/deliveries/recover']?.post;
    expect(JSON.stringify(recover?.requestBody)).toContain('#/components/schemas/RecoverInput');
    expect(JSON.stringify(recover?.responses['202'])).toContain('#/components/schemas/RecoveredDeliveries');
    expect(schemas.RecoverInput?.required).toEqual(['since']);
  });
});
