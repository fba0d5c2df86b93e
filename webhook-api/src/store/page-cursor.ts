// The opaque `cursor` of the list endpoints: a store position (a page's `next`) tagged with its
// collection, base64url-encoded, so a client passes it back without reading into it.

export type PagedCollection = 'configs' | 'links' | 'scopes';

export function encodeCursor(collection: PagedCollection, position: number): string {
  return Buffer.from(`${collection}:${position}`).toString('base64url');
}

/** The position a cursor holds; undefined when it is not one this service made for `collection`. */
export function decodeCursor(collection: PagedCollection, cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const match = /^(\w+):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return match?.[1] === collection ? Number(match[2]) : undefined;
}
