// What a Register learns from the service before it answers: its ListTools answer, within the
// catalog's limits, checked tool by tool. Each failure is a RegistryError saying what to fix; what
// grpc-js said of an unreachable address stays in the log.
import * as grpc from '@grpc/grpc-js';
import type { Tool__Output } from '@platform/proto';
import { ToolServiceError, type ToolServicePool } from '../tool-services/index.ts';
import { measureListing, type CatalogLimits } from './catalog-limits.ts';
import { RegistryError } from './registry-errors.ts';
import { serviceTools, ToolProblems, type ServiceTool } from './service-tools.ts';

export interface ServiceListing {
  /** The tools as its ListTools answered, what a store keeps (each replica checks them again as it reads them). */
  readonly announced: Tool__Output[];
  readonly tools: ServiceTool[];
  /** What they take of the catalog (catalog-limits.ts). */
  readonly bytes: number;
}

export async function listServiceTools(
  toolServices: ToolServicePool,
  callbackAddress: string,
  options: { readonly deadlineMs: number; readonly limits: CatalogLimits },
): Promise<ServiceListing> {
  let listed;
  try {
    listed = await toolServices.listTools(callbackAddress, { deadlineMs: options.deadlineMs });
  } catch (error) {
    if (!(error instanceof ToolServiceError)) throw error;
    if (error.status === grpc.status.UNIMPLEMENTED) {
      throw new RegistryError('TOOLS_NOT_EXPOSABLE', `The service at ${callbackAddress} does not serve platform.tools.v1.ToolService.`, { cause: error });
    }
    if (error.status === grpc.status.RESOURCE_EXHAUSTED) {
      // The answer was larger than the gateway reads: it would not fit one registration anyway.
      throw new RegistryError(
        'CATALOG_LIMIT',
        `The service's ListTools answer is larger than one registration may take (${options.limits.maxServiceBytes} bytes, REGISTRY_MAX_SERVICE_BYTES).`,
        { cause: error },
      );
    }
    // What grpc-js said (connection refused, a protocol error) stays in the log: the answer does
    // not turn Register into a probe of what listens on the gateway's loopback ports.
    const said = (grpc.status as Record<number, string | undefined>)[error.status] ?? String(error.status);
    throw new RegistryError('SERVICE_UNREACHABLE', `The gateway could not list the tools at callback_address ${callbackAddress} (${said}).`, { cause: error });
  }
  const bytes = measureListing(listed, options.limits);
  try {
    return { announced: listed, tools: serviceTools(listed), bytes };
  } catch (error) {
    if (!(error instanceof ToolProblems)) throw error;
    throw new RegistryError('TOOLS_NOT_EXPOSABLE', `The service at ${callbackAddress} offers tools the gateway cannot expose: ${error.message}.`, {
      cause: error,
    });
  }
}
