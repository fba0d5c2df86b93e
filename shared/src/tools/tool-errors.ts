// The two kinds of failure of a tool call. A ToolError is a failure the tool expects and the agent
// should read (the configuration is not there, the webhook API said no): the call answers OK with
// is_error. A ToolCallError is a refusal at the gRPC edge, from a catalog of status codes: the tool
// did not run (no valid token, a missing permission, bad arguments) or broke unexpectedly.
import { status } from '@grpc/grpc-js';
import { CatalogError } from '../errors/catalog-error.ts';

/** A failure the agent can act on; its code and message are sent to the agent, so they hold no secret. */
export class ToolError extends Error {
  /** Always `ToolError`. */
  override readonly name = 'ToolError';
  /** A stable code the agent can branch on, such as `NOT_FOUND` or `WEBHOOK_API_409`. */
  readonly code: string;
  /** More of what the agent may read (an HTTP status, the field at fault); JSON values only. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = Object.freeze({ ...options.details });
  }
}

/** Every refusal of the edge, with its gRPC status and a message safe to send. */
export const toolCallCatalog = {
  UNAUTHENTICATED: { status: status.UNAUTHENTICATED, message: 'The call needs a valid token delegated to this app.' },
  PERMISSION_DENIED: { status: status.PERMISSION_DENIED, message: 'The person and the app together lack the permission this tool needs.' },
  INVALID_ARGUMENT: { status: status.INVALID_ARGUMENT, message: "The arguments do not match the tool's input schema." },
  NOT_FOUND: { status: status.NOT_FOUND, message: 'This service has no tool of that name.' },
  UNAVAILABLE: { status: status.UNAVAILABLE, message: 'The platform could not be reached to check the token; try again shortly.' },
  DEADLINE_EXCEEDED: { status: status.DEADLINE_EXCEEDED, message: 'The tool did not finish before the deadline.' },
  CANCELLED: { status: status.CANCELLED, message: 'The gateway cancelled the call.' },
  INTERNAL: { status: status.INTERNAL, message: 'The tool failed unexpectedly; the tool service logged the cause.' },
} as const satisfies Record<string, { status: status; message: string }>;

/** One of the codes of `toolCallCatalog`. */
export type ToolCallErrorCode = keyof typeof toolCallCatalog;

/** A refused or failed tool call, mapped to its gRPC status at the edge. */
export class ToolCallError extends CatalogError<typeof toolCallCatalog> {
  override readonly name = 'ToolCallError';

  /** `message` defaults to the catalog's; it is sent to the gateway, so it never holds a secret. */
  constructor(code: ToolCallErrorCode, message?: string, options?: { cause?: unknown }) {
    super(toolCallCatalog, code, message, options);
  }
}

/** The refusal `ctx.requirePermission` throws; the message names the permission and the company. */
export function permissionDenied(permission: string, companyId: number | undefined): ToolCallError {
  const where = companyId === undefined ? 'at any company' : `at company ${companyId}`;
  return new ToolCallError('PERMISSION_DENIED', `${permission} is needed ${where}, and the person and the app do not both hold it there.`);
}
