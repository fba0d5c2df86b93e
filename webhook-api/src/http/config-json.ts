// A configuration's answer, serialized once per stored configuration object: while a configuration
// is unchanged the store's cache hands out the same frozen object, so a cached GET sends the text
// made before rather than copying and serializing the fields again. Its entity tag (if-match.ts)
// covers what the answer leaves out, the credentials as stored: a new authPayload is a new version.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { publicConfig } from '../configs/config-writes.ts';
import type { StoredConfig } from '../store/records.ts';

interface Answer {
  readonly json: string;
  readonly tag: string;
}

const answers = new WeakMap<StoredConfig, Answer>();

function answerOf(config: StoredConfig): Answer {
  let answer = answers.get(config);
  if (answer === undefined) {
    const json = JSON.stringify(publicConfig(config));
    // The credentials' ciphertext, never the credentials: a new one has a new nonce whatever it holds.
    const digest = createHash('sha256')
      .update(json)
      .update('\0')
      .update(config.authPayloadEncrypted ?? '')
      .digest('base64url');
    answer = { json, tag: `"${digest.slice(0, 27)}"` };
    // Only what cannot change under it: a configuration the cache handed out is frozen.
    if (Object.isFrozen(config)) answers.set(config, answer);
  }
  return answer;
}

/** The strong entity tag of `config`'s version: its answer and its stored credentials. */
export const configTag = (config: StoredConfig): string => answerOf(config).tag;

/** Sends the public view of `config` as res.json(publicConfig(config)) would (the app sets no JSON replacer, spaces or escaping), with its entity tag. */
export function sendConfig(res: Response, config: StoredConfig): void {
  const { json, tag } = answerOf(config);
  res.set('Content-Type', 'application/json');
  res.set('ETag', tag);
  res.send(json);
}
