// If-Match on a configuration's PUT and DELETE (RFC 9110, 13.1.1): the change is made only while the
// configuration is as the client last read it, checked under the row's lock, so two managers editing
// at once cannot overwrite each other unseen. Entity tags are strong (the API sends them so): the
// body of a configuration is the same bytes for the same configuration, and If-Match compares strongly.
import type { Request } from 'express';
import type { StoredConfig } from '../store/records.ts';
import { publicConfig } from '../configs/config-writes.ts';
import { invalid, WebhookApiError } from './errors.ts';

/** One entity tag, weak or strong, as RFC 9110 writes it. */
const entityTag = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** The entity tags an If-Match header lists (`*` as itself), or undefined without the header; 400 naming If-Match when it is not a list of them. */
export function ifMatchOf(req: Request): readonly string[] | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  const tags = header.split(',').map((tag) => tag.trim());
  if (tags.length === 1 && tags[0] === '*') return tags;
  if (tags.some((tag) => !entityTag.test(tag))) throw invalid('If-Match', 'must be * or a list of entity tags ("..."), as an ETag header gives them');
  return tags;
}

/** The strong entity tag of `config` as the API sends it: the one its GET's ETag header carries. */
export function configTag(req: Request, config: StoredConfig): string {
  const tagOf = req.app.get('etag fn') as (body: string, encoding: string) => string;
  return tagOf(JSON.stringify(publicConfig(config)), 'utf8');
}

/** Refuses (412) unless `tags` (an If-Match) names `current` as the client read it: `*`, or its entity tag, compared strongly. */
export function requireMatch(req: Request, tags: readonly string[], current: StoredConfig): void {
  if (tags[0] === '*') return;
  if (tags.includes(configTag(req, current))) return;
  throw new WebhookApiError(
    'PRECONDITION_FAILED',
    `webhook configuration ${current.id} has changed since the version If-Match names; read it again (its ETag) and make the change on that`,
    { field: 'If-Match' },
  );
}
