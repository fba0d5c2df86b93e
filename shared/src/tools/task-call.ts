// CallToolAsTask's side of a call: its first message is the call, run as CallToolStream runs its
// request; each later one a fresh delegated token for it, handed to the running call. The
// gateway's half-close (the end of its messages) is no cancellation: it ends its side once the call
// is over, or has nothing more to send; only a real cancel or the deadline stops the call.
import * as grpc from '@grpc/grpc-js';
import type { CallToolEvent, CallToolRequest__Output, TaskCallInput__Output } from '@platform/proto';
import type { TokenRenewals } from './token-renewal.ts';

/** Ends a running call early: its signal aborted, the stream ended with this status. */
export type RefuseCall = (code: grpc.status, details: string) => void;

/** The renewals of one call, as the stream delivers them; closed once the call has ended. */
export interface RenewalQueue extends TokenRenewals {
  /** A fresh token from the stream. */
  push(token: string): void;
  /** The call has ended: later tokens are dropped. */
  close(): void;
}

/**
 * A `RenewalQueue`. Before the call's own token is checked, only the newest renewal is kept: the
 * gateway sends them in order, each fresher than the one before.
 */
export function createRenewalQueue(): RenewalQueue {
  let renew: ((token: string) => void) | undefined;
  let waiting: string | undefined;
  let closed = false;
  return {
    push(token) {
      if (closed) return;
      if (renew) renew(token);
      else waiting = token;
    },
    listen(listener) {
      renew = listener;
      if (waiting !== undefined && !closed) listener(waiting);
      waiting = undefined;
    },
    close() {
      closed = true;
      renew = undefined;
      waiting = undefined;
    },
  };
}

type TaskStream = grpc.ServerDuplexStream<TaskCallInput__Output, CallToolEvent>;

/**
 * Serves one CallToolAsTask stream: runs its first message, which must be the call, with `runCall`,
 * and hands each later renewal to it. A first message that is not the call, a second call, or a
 * stream that ends before its call, ends it with INVALID_ARGUMENT.
 */
export function serveTask(stream: TaskStream, runCall: (stream: TaskStream, request: CallToolRequest__Output, renewals: RenewalQueue) => RefuseCall): void {
  let renewals: RenewalQueue | undefined;
  let refuseCall: RefuseCall | undefined;
  let refused = false;
  const refuse = (details: string) => {
    if (refused) return;
    refused = true;
    if (refuseCall) refuseCall(grpc.status.INVALID_ARGUMENT, details);
    else stream.emit('error', { code: grpc.status.INVALID_ARGUMENT, details });
  };
  stream.on('data', (input: TaskCallInput__Output) => {
    if (refused) return;
    if (!renewals) {
      if (input.input !== 'call' || !input.call) {
        refuse('the first message of CallToolAsTask must be the call');
        return;
      }
      renewals = createRenewalQueue();
      refuseCall = runCall(stream, input.call, renewals);
    } else if (input.input === 'renewal' && input.renewal) renewals.push(input.renewal.delegatedToken);
    else refuse('only the first message of CallToolAsTask is the call; every later one is a token renewal');
  });
  stream.on('end', () => {
    if (!renewals) refuse('the CallToolAsTask stream ended before its call');
  });
}
