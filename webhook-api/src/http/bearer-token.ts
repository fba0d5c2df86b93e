// A shared bearer token (ingest, metrics), compared in constant time and whole: exactly one
// Authorization header, `Bearer <token>`.
import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 digests are of equal length, so comparing them takes the same time whatever was sent. */
const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** What `bearerMatches` compares a request with: the digest of `Bearer <token>`. */
export const expectedBearer = (token: string) => digestOf(`Bearer ${token}`);

/**
 * Whether the request's Authorization headers are exactly one, `Bearer <token>`, compared in
 * constant time with the digest `expectedBearer` made (the token may hold any character the
 * settings allow, so the header is compared whole rather than parsed).
 */
export function bearerMatches(authorization: readonly string[] | undefined, expected: Buffer): boolean {
  const [presented, ...more] = authorization ?? [];
  return presented !== undefined && more.length === 0 && timingSafeEqual(digestOf(presented), expected);
}
