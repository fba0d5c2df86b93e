// How often one source may register a client through dynamic client registration: a fixed window
// of a minute per source address, so that one host cannot fill the client store or keep the
// platform busy writing it. Sources are remembered in a bounded cache.
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '@platform/tool-sdk';

/** Seconds the source must wait before its next registration; undefined when it may register now (and it is counted). */
export type RegistrationRate = (source: string) => number | undefined;

const windowMs = 60_000;

export function createRegistrationRate(perMinute: number, clock: Clock = systemClock): RegistrationRate {
  const windows = new LRUCache<string, { start: number; count: number }>({ max: 10_000 });
  return (source) => {
    const now = clock();
    let window = windows.get(source);
    if (!window || now - window.start >= windowMs) windows.set(source, (window = { start: now, count: 0 }));
    if (window.count >= perMinute) return Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
    window.count += 1;
    return undefined;
  };
}
