// The input rules administration and scripted login keep, from the SDK: text without control
// characters, and web addresses that are absolute http(s) without user information.
import { plainText as sdkPlainText, webAddressProblem } from '@platform/tool-sdk/internal';
import { z } from 'zod';

/** An id, a title or a name: at least one character, none of them a control character. */
export const plainText = sdkPlainText(z.string().min(1));

/** Absolute http or https, written out (scheme and `//`), with a host and no user information. */
export const webAddress = z
  .string()
  .refine((value) => webAddressProblem(value, { allowFragment: true }) === undefined, 'must be an absolute http or https address without user information');
