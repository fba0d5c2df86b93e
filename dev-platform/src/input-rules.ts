// The input rules administration and scripted login keep: text without control characters, and web
// addresses that are absolute http(s) without user information. Messages never repeat the value.
import { z } from 'zod';

/** C0 controls, DEL and C1 controls (Unicode general category Cc). */
const controlCharacter = /\p{Cc}/u;

/** An id, a title or a name: at least one character, none of them a control character. */
export const plainText = z
  .string()
  .min(1)
  .refine((value) => !controlCharacter.test(value), 'must not contain control characters');

/** Absolute http or https, written out (scheme and `//`), with a host and no user information. */
export function isWebAddress(value: string): boolean {
  // The URL parser drops tabs and line breaks and trims spaces: refuse them before it can.
  if (controlCharacter.test(value) || /\s/u.test(value)) return false;
  const written = /^https?:\/\/([^/?#\\]*)/iu.exec(value);
  if (!written || written[1]?.includes('@')) return false;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

export const webAddress = z.string().refine(isWebAddress, 'must be an absolute http or https address without user information');
