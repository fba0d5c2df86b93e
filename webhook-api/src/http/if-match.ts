// If-Match on a configuration's PUT and DELETE (RFC 9110, 13.1.1): the change is made only while the
// configuration is as the client last read it, checked under the row's lock, so two managers editing
// at once cannot overwrite each other unseen. Its entity tag is strong and covers its stored
// credentials too (config-json.ts); If-Match compares strongly, so a weak tag never matches.
import type { Request } from 'express';
import type { StoredConfig } from '../store/records.ts';
import { configTag } from './config-json.ts';
import { invalid, WebhookApiError } from './errors.ts';

/** One entity tag, weak or strong, as RFC 9110 writes it. */
const entityTag = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** The entity tags an If-Match header lists (`*` as itself), or undefined without the header; 400 naming If-Match when it is not a list of them. */
export function ifMatchOf(req: Request): readonly string[] | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  // Empty elements of a list are ignored (RFC 9110, 5.6.1.2).
  const tags = header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0) throw invalid('If-Match', 'must be * or a list of entity tags ("..."), as an ETag header gives them');
  if (tags.length === 1 && tags[0] === '*') return tags;
  if (tags.some((tag) => !entityTag.test(tag))) throw invalid('If-Match', 'must be * or a list of entity tags ("..."), as an ETag header gives them');
  return tags;
}

/** Refuses (412) unless `tags` (an If-Match) names `current` as the client read it: `*`, or its entity tag, compared strongly. */
export function requireMatch(tags: readonly string[], current: StoredConfig): void {
  if (tags[0] === '*') return;
  if (tags.includes(configTag(current))) return;
  throw new WebhookApiError(
    'PRECONDITION_FAILED',
    `webhook configuration ${current.id} has changed since the version If-Match names; read it again (its ETag) and make the change on that`,
    { field: 'If-Match' },
  );
}
