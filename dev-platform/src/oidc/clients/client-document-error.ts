// Why a client ID metadata document cannot identify a client: a stable code, and a message safe to
// show the person at the sign-in page and the client at the token endpoint (it names the field or
// the step, never the document's content beyond the field named).

export type ClientDocumentErrorCode =
  /** The client_id is no URL a document may be fetched from. */
  | 'CLIENT_ID_REFUSED'
  /** The document could not be fetched: refused address, no answer, not 200, too large, not JSON. */
  | 'DOCUMENT_UNAVAILABLE'
  /** The document was fetched and is no valid client metadata. */
  | 'DOCUMENT_INVALID';

export class ClientDocumentError extends Error {
  override readonly name = 'ClientDocumentError';
  readonly code: ClientDocumentErrorCode;

  constructor(code: ClientDocumentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
