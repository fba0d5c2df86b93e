// OpenAPI 3.1 for the webhook API, generated from the route table and the zod schemas that
// validate the requests, so the document cannot drift from what the service does.
import { z } from 'zod';
import { errorCatalog } from './errors.ts';
import { defaultLimits } from '../configs/limits.ts';
import { webhookServiceRelease } from '../delivery/service-release.ts';
import { deliveryRouteSpecs } from './deliveries.routes.ts';
import { deliveryRequestDocument } from './delivery-request.openapi.ts';
import type { DeliveryRouteSpec, FixedPaging, RouteSpec } from './route-spec.ts';
import { serviceSecuritySchemes, servicePaths } from './service-routes.openapi.ts';
import { signingSecretRouteSpecs } from './signing-secret.routes.ts';
import { testDeliveryRouteSpecs } from './test-delivery.routes.ts';
import { apiSchemas } from './webhooks.schemas.ts';
import { routeSpecs } from './webhooks.routes.ts';

/** A route of either table: the configurations' (paged up to a configurable limit) or the deliveries' (fixed pages). */
type DocumentedRoute = RouteSpec | DeliveryRouteSpec;

/** What each error status means, from the catalog: every code with that status, one line each. */
const statusText = (status: number) =>
  Object.entries(errorCatalog)
    .filter(([, entry]) => entry.status === status)
    .map(([code, entry]) => `${code}: ${entry.message}`)
    .join('\n');

/** Statuses any operation may answer, decided at the edge before or around its handler. */
// 405: the operation's path asked with a method it does not take (allowed-methods.ts), told with Allow.
const edgeStatuses = [401, 405, 431, 500, 502, 503];
/** Statuses of an operation that takes a body. */
const bodyStatuses = [400, 413, 415];

/** `/v2/webhooks/:id` as `/v2/webhooks/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

const componentUri = (id: string) => `#/components/schemas/${id}`;

/** Every named schema as a component: request bodies as they are sent (defaults optional), the rest as answered. */
function componentSchemas(): Record<string, unknown> {
  const convert = (io: 'input' | 'output') => z.toJSONSchema(apiSchemas, { target: 'draft-2020-12', io, uri: componentUri, unrepresentable: 'any' }).schemas;
  const inputs = convert('input');
  const outputs = convert('output');
  return Object.fromEntries(Object.keys(outputs).map((id) => [id, id.endsWith('Input') || id.endsWith('Update') ? inputs[id] : outputs[id]]));
}

/** A reference to a named schema (or an array of one); anything else inline. */
function jsonSchema(schema: z.ZodType): unknown {
  const named = apiSchemas.get(schema);
  if (named) return { $ref: componentUri(named.id) };
  if (schema instanceof z.ZodArray) return { type: 'array', items: jsonSchema(schema.element as z.ZodType) };
  const { $schema: _dialect, ...inline } = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' });
  return inline;
}

/**
 * `limit` and `cursor` of a list endpoint: pages of at most a configurable limit's number of items
 * (by default all of them) in creation order, or of a fixed size in the order `paging` states.
 */
function pagingParameters(paging: NonNullable<DocumentedRoute['paging']>) {
  const limit =
    typeof paging === 'string'
      ? {
          description: `Items per page, at most the ${paging} limit (${defaultLimits[paging]} unless configured otherwise), which is also the default: by default one page holds everything.`,
          schema: { type: 'integer', minimum: 1 },
        }
      : fixedLimit(paging);
  const order = typeof paging === 'string' ? 'in creation order' : paging.order;
  return [
    { name: 'limit', in: 'query', required: false, ...limit },
    {
      name: 'cursor',
      in: 'query',
      required: false,
      description: `Where the page starts: opaque, taken from the previous page's Link header. Items come ${order}.`,
      schema: { type: 'string' },
    },
  ];
}

const fixedLimit = (paging: FixedPaging) => ({
  description: `Items per page, from 1 to ${paging.most}; ${paging.byDefault} by default.`,
  schema: { type: 'integer', minimum: 1, maximum: paging.most, default: paging.byDefault },
});

/** A query parameter from its field's schema; companyId, read as text and turned into a number, as that number. */
function queryParameter(name: string, field: z.ZodType) {
  const required = !field.safeParse(undefined).success;
  if (name === 'companyId') return { name, in: 'query', required, schema: { type: 'integer', minimum: 1 } };
  const { description, ...schema } = jsonSchema(field) as { description?: string };
  return { name, in: 'query', required, ...(description !== undefined && { description }), schema };
}

const keptAfterDeletion = (spec: DocumentedRoute) => 'keptAfterDeletion' in spec && spec.keptAfterDeletion === true;

function operation(spec: DocumentedRoute) {
  const pathParams = [...spec.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'deviceId' ? { type: 'integer', minimum: 1 } : { type: 'string' },
  }));
  const queryParams = spec.query ? Object.entries(spec.query.shape).map(([name, field]) => queryParameter(name, field as z.ZodType)) : [];
  const pagingParams = spec.paging ? pagingParameters(spec.paging) : [];
  const responses: Record<string, unknown> = {
    [spec.success.status]: {
      description: spec.success.description,
      ...((spec.paging || keptAfterDeletion(spec)) && {
        headers: {
          ...(spec.paging && { Link: { $ref: '#/components/headers/Link' } }),
          ...(keptAfterDeletion(spec) && { 'Webhook-Config-Deleted-At': { $ref: '#/components/headers/WebhookConfigDeletedAt' } }),
        },
      }),
      ...(spec.success.status === 201 && { headers: { Location: { $ref: '#/components/headers/Location' } } }),
      ...(spec.success.schema && { content: { 'application/json': { schema: jsonSchema(spec.success.schema) } } }),
    },
  };
  const errorStatuses = new Set([...spec.errors, ...edgeStatuses, ...(spec.body ? bodyStatuses : [])]);
  for (const status of [...errorStatuses].sort()) {
    responses[status] = { description: statusText(status), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `Needs device-overview:${spec.right} on the owning company.${keptAfterDeletion(spec) ? ' Also answers for a configuration deleted within the retention (WEBHOOK_DELIVERY_RETENTION, 7 days by default), with the Webhook-Config-Deleted-At header.' : ''}`,
    parameters: [
      ...pathParams,
      ...queryParams,
      ...pagingParams,
      { $ref: '#/components/parameters/AuthVersion' },
      { $ref: '#/components/parameters/CompanyView' },
    ],
    ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body) } } } }),
    responses,
    security: [{ bearer: [] }, { apiToken: [] }],
  };
}

export function createOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of [...routeSpecs, ...deliveryRouteSpecs, ...signingSecretRouteSpecs, ...testDeliveryRouteSpecs]) {
    (paths[openApiPath(spec.path)] ??= {})[spec.method] = operation(spec);
  }
  Object.assign(paths, servicePaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Device telemetry webhooks',
      version: webhookServiceRelease,
      description:
        'Configure webhooks that push raw device telemetry to your endpoint. Experimental: the API and payload format may change between releases. Requires cloud 3.7.0 or later.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    paths,
    webhooks: deliveryRequestDocument,
    components: {
      schemas: componentSchemas(),
      headers: {
        Link: {
          description:
            'Present when more items follow: `</v2/...same path and query with cursor=...>; rel="next"` (RFC 8288), a path-absolute reference to the next page.',
          schema: { type: 'string' },
        },
        WebhookConfigDeletedAt: {
          description:
            'Present when the configuration was deleted (ISO 8601, when): its attempt log stays readable by its company’s viewers until retention removes it.',
          schema: { type: 'string', format: 'date-time' },
        },
        Location: {
          description: 'Where the created resource is: a path-absolute reference (`/v2/webhooks/{id}`, `.../devices/{deviceId}`, `.../routes/{routeId}`).',
          schema: { type: 'string' },
        },
      },
      parameters: {
        AuthVersion: { name: 'AuthVersion', in: 'header', required: true, schema: { type: 'string', const: 'V0.0.1' } },
        CompanyView: {
          name: 'companyView',
          in: 'header',
          required: false,
          description: 'Restricts the call to this company',
          schema: { type: 'integer', minimum: 1 },
        },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiToken <token>`' },
        ...serviceSecuritySchemes,
      },
    },
  };
}
