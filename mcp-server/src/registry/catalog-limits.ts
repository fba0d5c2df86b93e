// How much of the gateway's memory, and of every tools/list answer, the registered tools may take:
// tools per service, bytes per tool, per registration, per app and in all. A registration past one
// is refused RESOURCE_EXHAUSTED naming the limit and the setting that moves it. Bytes are those of
// what a client is sent of each tool: its name, title, description, schemas and permission.
import type { Tool__Output } from '@platform/proto';
import { clip } from '@platform/tool-sdk/internal';
import { RegistryError } from './registry-errors.ts';

export interface CatalogLimits {
  /** Tools one service may offer (REGISTRY_MAX_TOOLS_PER_SERVICE). */
  readonly maxToolsPerService: number;
  /** Bytes one tool may take (REGISTRY_MAX_TOOL_BYTES). */
  readonly maxToolBytes: number;
  /** Bytes one registration's tools may take together (REGISTRY_MAX_SERVICE_BYTES). */
  readonly maxServiceBytes: number;
  /** Bytes one app's live registrations may take together (REGISTRY_MAX_APP_BYTES). */
  readonly maxAppBytes: number;
  /** Bytes every live registration may take together (REGISTRY_MAX_CATALOG_BYTES). */
  readonly maxCatalogBytes: number;
}

const kib = 1024;

/** The defaults of the gateway's settings; the webhook tools (18) take about 25 KiB. */
export const defaultCatalogLimits: CatalogLimits = Object.freeze({
  maxToolsPerService: 128,
  maxToolBytes: 64 * kib,
  maxServiceBytes: 512 * kib,
  maxAppBytes: 1024 * kib,
  maxCatalogBytes: 4096 * kib,
});

/** The bytes a client is sent of one tool, as its service announced it. */
export function toolBytes(tool: Tool__Output): number {
  return (
    Buffer.byteLength(tool.name) +
    Buffer.byteLength(tool.title) +
    Buffer.byteLength(tool.description) +
    Buffer.byteLength(tool.inputSchemaJson) +
    Buffer.byteLength(tool.outputSchemaJson) +
    Buffer.byteLength(tool.requiresPermission)
  );
}

const exhausted = (message: string) => new RegistryError('CATALOG_LIMIT', message);

/** The bytes of a service's tools; throws CATALOG_LIMIT for too many tools, a tool too large, or too many bytes in all. */
export function measureListing(tools: readonly Tool__Output[], limits: CatalogLimits): number {
  if (tools.length > limits.maxToolsPerService) {
    throw exhausted(`The service offers ${tools.length} tools; a service may offer at most ${limits.maxToolsPerService} (REGISTRY_MAX_TOOLS_PER_SERVICE).`);
  }
  let total = 0;
  for (const tool of tools) {
    const bytes = toolBytes(tool);
    if (bytes > limits.maxToolBytes) {
      throw exhausted(
        `The tool ${JSON.stringify(clip(tool.name, 80))} takes ${bytes} bytes (its description and schemas); a tool may take at most ${limits.maxToolBytes} (REGISTRY_MAX_TOOL_BYTES).`,
      );
    }
    total += bytes;
  }
  if (total > limits.maxServiceBytes) {
    throw exhausted(`The service's tools take ${total} bytes; one registration may take at most ${limits.maxServiceBytes} (REGISTRY_MAX_SERVICE_BYTES).`);
  }
  return total;
}
