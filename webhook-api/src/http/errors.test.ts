import { describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes, WebhookApiError } from './errors.ts';
import { createOpenApiDocument } from './openapi.ts';

interface Operation {
  responses: Record<string, { description?: string }>;
}

describe('the error catalog', () => {
  const document = createOpenApiDocument('http://127.0.0.1:4100') as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } };
  };
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));

  it('gives every code an HTTP error status and a message safe to show', () => {
    for (const code of errorCodes) {
      const { status, message } = errorCatalog[code];
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message.length, code).toBeGreaterThan(10);
      expect(new WebhookApiError(code).toBody()).toEqual({ error: { code, message } });
    }
  });

  it('appears whole in the OpenAPI document: every code in the Error schema, every status answered by some operation with its codes described', () => {
    expect(document.components.schemas.Error.properties.error.properties.code.enum.sort()).toEqual([...errorCodes].sort());
    for (const code of errorCodes) {
      const status = String(errorCatalog[code].status);
      const described = operations.filter((operation) => operation.responses[status]?.description?.includes(code));
      expect(described.length, `${code} (${status})`).toBeGreaterThan(0);
    }
  });
});
