// The opaque `cursor` of the list endpoints: a store position (a page's `next`) bound to the list it
// came from (a company's configurations, a configuration's links, a link's scopes), base64url-encoded,
// so a client passes it back without reading into it and a cursor of one list is refused by another.

/** Names one list: `configs of company 1`, `links of <config id>`, `scopes of <config id>/<device id>`. */
export type PagedList = string;

export function encodeCursor(list: PagedList, position: number): string {
  return Buffer.from(`${list}\n${position}`).toString('base64url');
}

/** The position a cursor holds; undefined when it is not one this service made for `list`. */
export function decodeCursor(list: PagedList, cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(cursor)) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const separator = decoded.lastIndexOf('\n');
  const position = decoded.slice(separator + 1);
  return separator > 0 && decoded.slice(0, separator) === list && /^\d{1,15}$/.test(position) ? Number(position) : undefined;
}
