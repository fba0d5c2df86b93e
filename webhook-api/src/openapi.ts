// OpenAPI 3.1 for the webhook API, generated from the route table and the zod schemas that
// validate the requests, so the document cannot drift from what the service does.
import { z } from 'zod';
import { errorResponse } from './schemas.ts';
import { routeSpecs, type RouteSpec } from './webhooks.routes.ts';

const statusText: Record<number, string> = {
  400: 'Validation failed; the message and `field` name the field',
  401: 'AuthVersion is not V0.0.1, or the token is missing, invalid or expired',
  403: 'Valid token, but Device Overview View/Manage is missing on the owning company',
  404: 'Company, configuration, device, link or route not found, or not within the caller’s company',
  409: 'Device already linked, or an identical scope already on the link',
  503: 'The platform could not be reached to check the caller; try again',
};

/** `/v2/webhooks/:id` as `/v2/webhooks/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'ref' });
}

function operation(spec: RouteSpec) {
  const pathParams = [...spec.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'deviceId' ? { type: 'integer', minimum: 1 } : { type: 'string' },
  }));
  const queryParams = spec.query
    ? Object.keys(spec.query.shape).map((name) => ({ name, in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }))
    : [];
  const responses: Record<string, unknown> = {
    [spec.success.status]: {
      description: spec.success.description,
      ...(spec.success.schema && { content: { 'application/json': { schema: jsonSchema(spec.success.schema, 'output') } } }),
    },
  };
  for (const status of spec.errors) {
    responses[status] = { description: statusText[status] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `Needs device-overview:${spec.right} on the owning company.`,
    parameters: [...pathParams, ...queryParams, { $ref: '#/components/parameters/AuthVersion' }, { $ref: '#/components/parameters/CompanyView' }],
    ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } } }),
    responses,
    security: [{ bearer: [] }, { apiToken: [] }],
  };
}

export function createOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routeSpecs) {
    (paths[openApiPath(spec.path)] ??= {})[spec.method] = operation(spec);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Device telemetry webhooks',
      version: '2.0.0',
      description: 'Configure webhooks that push raw device telemetry to your endpoint. Experimental: the API and payload format may change between releases. Requires cloud 3.7.0 or later.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: jsonSchema(errorResponse, 'output') },
      parameters: {
        AuthVersion: { name: 'AuthVersion', in: 'header', required: true, schema: { type: 'string', const: 'V0.0.1' } },
        CompanyView: { name: 'companyView', in: 'header', required: false, description: 'Restricts the call to this company', schema: { type: 'integer', minimum: 1 } },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiToken <token>`' },
      },
    },
  };
}
