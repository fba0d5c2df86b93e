// Every refusal of the ToolRegistry's gRPC edge, with its status and a message safe to send to the
// tool service (it names fields, tools, addresses and client ids, never a token). An outage of the
// platform is UNAVAILABLE, never the service's fault.
import { status } from '@grpc/grpc-js';
import { CatalogError, clip } from '@platform/tool-sdk/internal';

const appTokenNeeded = "an app's client-credentials token is needed (grant client_credentials, scope api)";

export const registryErrorCatalog = {
  APP_TOKEN_MISSING: {
    status: status.UNAUTHENTICATED,
    message: `No usable app token: send exactly one \`authorization: Bearer <token>\` metadata entry; ${appTokenNeeded}.`,
  },
  APP_TOKEN_REFUSED: { status: status.UNAUTHENTICATED, message: `The platform refused the token; ${appTokenNeeded}.` },
  APP_NOT_LINKED: { status: status.PERMISSION_DENIED, message: 'The client is linked to no app; an administrator must link it.' },
  NOT_A_TOOL_PUBLISHER: { status: status.PERMISSION_DENIED, message: 'The platform does not mark the app as a tool publisher.' },
  APP_NOT_ALLOWED: { status: status.PERMISSION_DENIED, message: "The gateway's operator does not let this app register tool services here." },
  PLATFORM_UNAVAILABLE: { status: status.UNAVAILABLE, message: 'The platform could not be reached to check the app token; try again later.' },
  INVALID_FIELD: { status: status.INVALID_ARGUMENT, message: 'A field of the request is missing or malformed.' },
  REGISTRATION_NOT_FOUND: { status: status.NOT_FOUND, message: 'No such registration (unknown or expired); register again.' },
  REGISTRATION_OF_ANOTHER_APP: { status: status.PERMISSION_DENIED, message: 'The registration belongs to another app.' },
  CALLBACK_NETWORK_NOT_ALLOWED: {
    status: status.FAILED_PRECONDITION,
    message: 'The callback address is outside the networks the gateway lets tool services be reached at (REGISTRY_CALLBACK_NETWORKS).',
  },
  SERVICE_UNREACHABLE: { status: status.UNAVAILABLE, message: "The gateway could not list the service's tools at its callback address." },
  TOOLS_NOT_EXPOSABLE: { status: status.FAILED_PRECONDITION, message: 'The service offers tools the gateway cannot expose.' },
  APP_KEY_NOT_PREFIXABLE: { status: status.FAILED_PRECONDITION, message: "The app's key cannot prefix tool names." },
  TOO_MANY_REGISTRATIONS_OF_APP: {
    status: status.RESOURCE_EXHAUSTED,
    message: 'The app holds as many registrations as one app may; deregister a service or let one expire first.',
  },
  CATALOG_LIMIT: { status: status.RESOURCE_EXHAUSTED, message: "The service's tools exceed a limit of the gateway's catalog." },
  TOO_MANY_REGISTRATIONS: { status: status.RESOURCE_EXHAUSTED, message: 'The gateway holds as many registrations as it takes; try again later.' },
  CALLER_GONE: { status: status.CANCELLED, message: 'The call was cancelled before the registration was made; nothing was registered.' },
  REGISTRY_CLOSED: { status: status.UNAVAILABLE, message: 'The gateway is shutting down.' },
  STORE_UNAVAILABLE: { status: status.UNAVAILABLE, message: 'The gateway could not reach the database of its registrations; try again later.' },
  INTERNAL: { status: status.INTERNAL, message: 'The registry failed unexpectedly; the gateway logged the cause.' },
} as const satisfies Record<string, { status: status; message: string }>;

export type RegistryErrorCode = keyof typeof registryErrorCatalog;

export class RegistryError extends CatalogError<typeof registryErrorCatalog> {
  override readonly name = 'RegistryError';

  /** `message` defaults to the catalog's; it is sent to the tool service, so it never holds a secret. */
  constructor(code: RegistryErrorCode, message?: string, options?: { cause?: unknown }) {
    super(registryErrorCatalog, code, message, options);
  }
}

/** Longest details sent back: a refusal explains itself in a line or a few, never a dump. */
export const maxDetailsLength = 1000;

/** The status a failure answers with: a RegistryError's own, anything else INTERNAL with the generic message. */
export function statusOf(error: unknown): { readonly code: status; readonly details: string; readonly outcome: RegistryErrorCode } {
  const known = error instanceof RegistryError ? error : new RegistryError('INTERNAL');
  return { code: registryErrorCatalog[known.code].status, details: clip(known.message, maxDetailsLength), outcome: known.code };
}
