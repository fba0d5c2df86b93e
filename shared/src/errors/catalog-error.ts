// The error type of an edge: a catalog names each code with its status and a message safe to show;
// an error carries its code, that status, a message (the catalog's unless a more precise one,
// still safe, is given) and its cause for the logs. Each edge (an HTTP API, the gRPC edge) keeps
// its own catalog and extends this class.

/** An edge's error codes, each with its status and the message safe to show. */
export type ErrorCatalog = Readonly<Record<string, { readonly status: number; readonly message: string }>>;

/** The base of each edge's error type: a code from the edge's catalog, with its status and safe message, the cause kept for the logs. */
export class CatalogError<Catalog extends ErrorCatalog> extends Error {
  readonly code: keyof Catalog & string;
  readonly status: number;

  constructor(catalog: Catalog, code: keyof Catalog & string, message?: string, options?: { cause?: unknown }) {
    const entry = catalog[code];
    if (!entry) throw new TypeError(`CatalogError: ${code} is not in the catalog`);
    super(message ?? entry.message, options);
    this.code = code;
    this.status = entry.status;
  }
}
