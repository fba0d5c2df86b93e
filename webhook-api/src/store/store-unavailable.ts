// The store could not be reached or could not do its work (connection refused or dropped, a
// timeout, disk full): an outage of ours, answered 503 like a platform outage, never the caller's fault.
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';
}
