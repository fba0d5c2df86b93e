// Paging of the list endpoints: `limit` and `cursor` in, a JSON array and a path-absolute
// `Link: <...>; rel="next"` out (built from the validated path and query, never the Host header).
import type { Request, Response } from 'express';
import { invalid } from './errors.ts';
import { decodeCursor, encodeCursor, type PagedList } from './page-cursor.ts';
import type { Page, PageRequest } from '../store/webhook-store.ts';

/** The page a list request asks for: `limit` from 1 to the collection's limit (all of it by default), `cursor` from a Link. */
export function pageOf(req: Request, list: PagedList, max: number): PageRequest {
  const { limit, cursor } = req.query;
  if (limit !== undefined && (typeof limit !== 'string' || !/^\d{1,7}$/.test(limit) || Number(limit) < 1 || Number(limit) > max)) {
    throw invalid('limit', `must be a whole number from 1 to ${max}`);
  }
  if (cursor === undefined) return { limit: limit === undefined ? max : Number(limit) };
  const after = typeof cursor === 'string' ? decodeCursor(list, cursor) : undefined;
  if (after === undefined) throw invalid('cursor', 'must be the cursor of a Link header of this list');
  return { limit: limit === undefined ? max : Number(limit), after };
}

/** Sends a page as a JSON array; a path-absolute Link to the next page (same path and query, its cursor) when more follow. */
export function sendPage<T>(req: Request, res: Response, path: string, list: PagedList, page: Page<T>): void {
  if (page.next !== undefined) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(req.query)) {
      for (const one of Array.isArray(value) ? value : [value]) if (typeof one === 'string') query.append(name, one);
    }
    query.set('cursor', encodeCursor(list, page.next));
    res.set('link', `<${path}?${query.toString()}>; rel="next"`);
  }
  res.json(page.items);
}
