// What the gateway knows of the tool services registered at it: each live service (its app, where
// to reach it, the app's latest token) and the tools it offers under the names MCP clients see.
// The registry writes it; tools/list and tools/call read it. Types only.
import type { InputRequired__Output, ToolResult__Output } from '@platform/proto';

/** One live registration: a tool service that announced itself and keeps its heartbeat. */
export interface ServiceEndpoint {
  readonly registrationId: string;
  readonly serviceName: string;
  /** The client id of the app the service runs as (its client-credentials token's subject). */
  readonly appClientId: string;
  /** The key of that app: the prefix of its tools' exposed names (unless the operator pins its plain names). */
  readonly appKey: string;
  /** Where the gateway reaches the service's ToolService, host:port. */
  readonly callbackAddress: string;
  /** Since when the service has been registered without a gap (epoch ms, by the store's time): of one app's services offering one name, the earliest keeps it. */
  readonly since: number;
  /**
   * The app's client-credentials token from its latest Register or Heartbeat: the `actor_token`
   * of every token exchange made for this service. Read it at the moment of use; it is replaced
   * by each heartbeat and must never be logged.
   */
  actorToken(): string;
}

/** One tool of one service, as MCP clients see it. */
export interface RemoteTool {
  /** The MCP tool name: the tool's own name for the pinned app, `<appKey>__<name>` for any other (see exposed-names.ts). */
  readonly exposedName: string;
  /** The tool's name within its service (what CallTool is sent with). */
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  /** JSON Schema of the arguments object, exactly as the service published it. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** JSON Schema of the result object, when the service declares one. */
  readonly outputSchema: Readonly<Record<string, unknown>> | undefined;
  /** The permission the caller must hold at one company or more; undefined when none. */
  readonly requiresPermission: string | undefined;
  readonly annotations: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly idempotentHint: boolean };
  /** The tool's own time limit per call in milliseconds, as its service declared it; undefined for the gateway's (TOOL_CALL_TIMEOUT_MS). */
  readonly timeoutMs?: number | undefined;
  /** Whether a client that supports MCP tasks runs it as one ('optional'), or must ('required'); undefined: never a task. */
  readonly taskSupport?: 'optional' | 'required' | undefined;
  readonly service: ServiceEndpoint;
}

/** An immutable snapshot of every tool offered now; a new one replaces it on every change. */
export interface ToolCatalog {
  /** Grows by one on every change. */
  readonly version: number;
  /** In a stable order: by exposed name. */
  readonly tools: readonly RemoteTool[];
  /** The tool MCP clients know as `exposedName`. */
  byName(exposedName: string): RemoteTool | undefined;
}

/** How a tool service's call ended: its result, the questions it waits on, or the gRPC status it failed with. */
export type ToolServiceAnswer =
  | { readonly ok: true; readonly result: ToolResult__Output }
  | { readonly ok: true; readonly inputRequired: InputRequired__Output }
  | {
      readonly ok: false;
      readonly code: number;
      readonly details: string;
      /** Set when no call was made because the TLS handshake with the service failed: why, in words. */
      readonly tlsRefusal?: string;
    };
