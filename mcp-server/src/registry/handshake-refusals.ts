// Refused TLS handshakes at the registry, told so an operator can act on them but never as a
// flood: the first refusal from a peer (its address; a client takes a new port for each attempt)
// is one line with the reason and what to do; more from it within the interval are counted and
// told in one line as the interval ends. So a client retrying in a loop, or a scan, makes at most
// two lines per peer per interval, and the peers tracked are bounded.
import type { Logger, Timers } from '@platform/tool-sdk';
import { systemTimers, type TlsRefusal } from '@platform/tool-sdk/internal';

export interface HandshakeRefusalLogOptions {
  readonly logger: Logger;
  /** How long one peer's refusals are counted into one line. Default 60 000. */
  readonly intervalMs?: number;
  /** Peers tracked at once; refusals from more are counted together as "other peers". Default 1 000. */
  readonly maxPeers?: number;
  readonly timers?: Timers;
}

export interface HandshakeRefusalLog {
  refused(refusal: TlsRefusal): void;
  /** Tells what is still counted and stops the timers. */
  close(): void;
}

interface Counted {
  more: number;
  reason: string;
  level: 'warn' | 'debug';
  readonly cancel: () => void;
}

const otherPeers = 'other peers';

/** What the operator can do about a refusal, in words, from the reason the SDK gave. */
export function refusalAdvice(reason: string): string {
  if (/plaintext/.test(reason)) {
    return 'the peer may be speaking plaintext to a TLS port: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE on the tool service (or point its GATEWAY_ADDRESS at a plaintext registry on loopback)';
  }
  if (/certificate/.test(reason)) {
    return "give the tool service a certificate issued by the CA of the gateway's GRPC_TLS_CA_FILE (its GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE), or set GRPC_TLS_REQUIRE_CLIENT_CERT=false at the gateway";
  }
  if (/ended the handshake/.test(reason)) {
    return "the tool service may not trust the gateway's certificate: give it, as GRPC_TLS_CA_FILE, the CA that issued the gateway's GRPC_TLS_CERT_FILE (a health check that only connects looks the same)";
  }
  return "see the tool service's log for its side of the handshake";
}

const hostOf = (peer: string) => (/^.+:\d+$/.test(peer) ? peer.slice(0, peer.lastIndexOf(':')) : peer);

export function createHandshakeRefusalLog(options: HandshakeRefusalLogOptions): HandshakeRefusalLog {
  const { logger, intervalMs = 60_000, maxPeers = 1_000, timers = systemTimers } = options;
  const counting = new Map<string, Counted>();
  const intervalSeconds = Math.round(intervalMs / 1000);

  const summarize = (host: string) => {
    const counted = counting.get(host);
    counting.delete(host);
    if (!counted || counted.more === 0) return;
    logger[counted.level](
      { peer: host, refused: counted.more, intervalSeconds, reason: counted.reason, advice: refusalAdvice(counted.reason) },
      `refused ${counted.more} more TLS handshakes from ${host} in the last ${intervalSeconds} s; ${refusalAdvice(counted.reason)}`,
    );
  };

  return {
    refused({ peer, reason, refusedHere }) {
      // A client that does not speak TLS, or whose certificate this side refused, is the operator's to fix;
      // one that gave up mid-handshake may be a health check that only connects.
      const level = refusedHere || /plaintext/.test(reason) ? 'warn' : 'debug';
      const host = hostOf(peer);
      const key = counting.has(host) || counting.size < maxPeers ? host : otherPeers;
      const counted = counting.get(key);
      if (counted) {
        counted.more += 1;
        counted.reason = reason;
        if (level === 'warn') counted.level = 'warn';
        return;
      }
      counting.set(key, {
        more: 0,
        reason,
        level,
        cancel: timers.after(intervalMs, () => {
          summarize(key);
        }),
      });
      const advice = refusalAdvice(reason);
      // The message the SDK's tests and operators search for stays first.
      logger[level]({ peer, reason, advice, refused: 1 }, `refused a tool service at the TLS handshake; it sent nothing. ${advice}`);
    },
    close() {
      for (const [key, counted] of [...counting]) {
        counted.cancel();
        summarize(key);
      }
    },
  };
}
