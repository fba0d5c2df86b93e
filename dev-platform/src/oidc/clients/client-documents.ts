// Clients identified by a client ID metadata document (MCP authorization, 2026-07-28): a client_id
// that is a URL is answered from the document found there, fetched within bounds, checked, and kept
// as long as its caching headers say within the platform's bounds; concurrent look-ups of one URL
// share one fetch (lru-cache's fetchMethod, the repository's one single-flighted cache). Only
// documents that make a valid client are kept: a failing URL is tried again on its next use.
import { LRUCache } from 'lru-cache';
import type { ClientMetadata } from 'oidc-provider';
import type { Clock } from '@platform/tool-sdk';
import { systemClock } from '@platform/tool-sdk/internal';
import { ClientDocumentError } from './client-document-error.ts';
import { createDocumentFetcher } from './client-document-fetch.ts';
import { clientFromDocument } from './client-document-rules.ts';
import { clientIdUrlProblem, isClientIdUrl } from './client-id-url.ts';
import { keepForMs } from './http-freshness.ts';

export interface ClientDocumentsOptions {
  /** Loopback client ids and documents (development); false with NODE_ENV=production. */
  readonly allowLoopback: boolean;
  readonly clock?: Clock;
  /** Certificates trusted for https documents besides the system's (a test's own CA). */
  readonly ca?: string | undefined;
  /** Time limit of one fetch. Default 5 s. */
  readonly timeoutMs?: number;
  /** Largest document taken. Default 5 KiB, as the draft suggests. */
  readonly maxBytes?: number;
  /** Shortest and longest a document is kept, whatever its headers say. Default 30 s and a day. */
  readonly minCacheMs?: number;
  readonly maxCacheMs?: number;
  /** Most documents kept. Default 1000. */
  readonly maxDocuments?: number;
}

export interface ClientDocuments {
  /** Whether `clientId` is meant as a document's URL (valid or not): such an id is this module's to answer. */
  handles(clientId: string): boolean;
  /** The client the document at `clientId` describes; a ClientDocumentError saying what is wrong otherwise. */
  resolve(clientId: string): Promise<ClientMetadata>;
  close(): Promise<void>;
}

export function createClientDocuments(options: ClientDocumentsOptions): ClientDocuments {
  const clock = options.clock ?? systemClock;
  const { allowLoopback, timeoutMs = 5_000, maxBytes = 5 * 1024, minCacheMs = 30_000, maxCacheMs = 86_400_000, maxDocuments = 1000 } = options;
  // A lifetime of 0 is "forever" to lru-cache: the shortest is never under a second.
  const bounds = { minMs: Math.max(1_000, minCacheMs), maxMs: Math.max(1_000, minCacheMs, maxCacheMs) };
  const fetcher = createDocumentFetcher({ allowLoopback, timeoutMs, maxBytes, ca: options.ca });
  const documents = new LRUCache<string, ClientMetadata>({
    max: maxDocuments,
    // Lifetimes judged by the clock at every look-up (no "now" kept between them), so an injected clock is the only time.
    perf: { now: clock },
    ttlResolution: 0,
    fetchMethod: async (clientId, _stale, { options: entry }) => {
      const fetched = await fetcher.fetch(clientId);
      const client = clientFromDocument(clientId, fetched.json);
      entry.ttl = keepForMs(fetched.headers, clock(), bounds);
      return client;
    },
  });

  return {
    handles: isClientIdUrl,
    async resolve(clientId) {
      const problem = clientIdUrlProblem(clientId, { allowLoopbackHttp: allowLoopback });
      if (problem) throw new ClientDocumentError('CLIENT_ID_REFUSED', `client_id ${problem}`);
      const client = await documents.fetch(clientId);
      if (client === undefined) throw new ClientDocumentError('DOCUMENT_UNAVAILABLE', 'the document could not be fetched');
      return client;
    },
    close: () => fetcher.close(),
  };
}
