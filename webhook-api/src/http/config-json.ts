// A configuration's answer, serialized once per stored configuration object: while a configuration
// is unchanged the store's cache hands out the same frozen object, so a cached GET sends the text
// made before rather than copying and serializing the fields again.
import type { Response } from 'express';
import { publicConfig } from '../configs/config-writes.ts';
import type { StoredConfig } from '../store/records.ts';

const serialized = new WeakMap<StoredConfig, string>();

/** Sends the public view of `config` as res.json(publicConfig(config)) would (the app sets no JSON replacer, spaces or escaping). */
export function sendConfig(res: Response, config: StoredConfig): void {
  let json = serialized.get(config);
  if (json === undefined) {
    json = JSON.stringify(publicConfig(config));
    // Only what cannot change under it: a configuration the cache handed out is frozen.
    if (Object.isFrozen(config)) serialized.set(config, json);
  }
  res.set('Content-Type', 'application/json');
  res.send(json);
}
