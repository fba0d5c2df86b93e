// The `requestState` of an input-required result: everything the gateway needs to carry a tool call
// over its rounds of questions without keeping anything in a replica's memory. Sealed (sealed-box.ts)
// so the client holds it without reading or changing it, and bound by the associated data to the
// person, the app, the tool and a digest of the arguments, so it opens only for the same call by the
// same person. Inside: the round, the answers the tool has had (each the client's bare response as
// JSON), which question each outstanding key is, when the state expires, and a nonce that is spent
// the first time the state comes back (spent-states.ts), so no state is answered twice.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createSealedBox } from '../sealed-box.ts';

/** The kinds of question a round may ask, as MCP names their methods. */
export const inputMethods = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

export type InputMethod = (typeof inputMethods)[number];

/** What the state holds between two rounds. */
export interface RoundState {
  /** Rounds of questions asked so far in this call (1 after the first). */
  readonly round: number;
  /** Answers the tool had, by key. */
  readonly answers: Readonly<Record<string, string>>;
  /** The questions of the last round, by key: what an answer to each must be. */
  readonly asked: Readonly<Record<string, InputMethod>>;
}

/** A state as it came back: what it holds, and its nonce and expiry. */
export interface OpenedState extends RoundState {
  readonly nonce: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/** What a state is bound to: one call by one person. */
export interface StateBinding {
  readonly callerId: string;
  readonly appClientId: string;
  /** The tool's exposed name. */
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface RequestStates {
  seal(state: RoundState, binding: StateBinding): string;
  /**
   * The state, or why it does not open: not one this gateway sealed, sealed for another person,
   * tool or arguments, or changed (`foreign`); past its time (`expired`).
   */
  open(sealed: string, binding: StateBinding): OpenedState | 'foreign' | 'expired';
}

const payload = z.strictObject({
  v: z.literal(1),
  round: z.number().int().positive(),
  answers: z.record(z.string(), z.string()),
  asked: z.record(z.string(), z.enum(inputMethods)),
  nonce: z.string(),
  exp: z.number(),
});

/** JSON with object keys in order, so the same arguments give the same digest however a client orders them. */
function canonical(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** The associated data of a binding: who, through which app, which tool, which arguments. */
function associatedData(binding: StateBinding): string {
  const digest = createHash('sha256').update(canonical(binding.args)).digest('base64url');
  return JSON.stringify([binding.callerId, binding.appClientId, binding.tool, digest]);
}

export interface RequestStatesOptions {
  /** The gateway's client secret (MCP_GATEWAY_CLIENT_SECRET): every replica's is the same. */
  readonly secret: string;
  /** How long a state opens after it is sealed. */
  readonly ttlMs: number;
  readonly clock: () => number;
}

/** Seals and opens the states of every replica holding the same secret. */
export function createRequestStates(options: RequestStatesOptions): RequestStates {
  const box = createSealedBox(options.secret, 'mcp request state v1');
  return {
    seal(state, binding) {
      const sealed = { v: 1, ...state, nonce: randomBytes(16).toString('base64url'), exp: options.clock() + options.ttlMs };
      return box.seal(JSON.stringify(sealed), associatedData(binding));
    },
    open(sealed, binding) {
      const opened = box.open(sealed, associatedData(binding));
      if (opened === undefined) return 'foreign';
      let parsed: z.infer<typeof payload>;
      try {
        parsed = payload.parse(JSON.parse(opened));
      } catch {
        return 'foreign';
      }
      if (parsed.exp <= options.clock()) return 'expired';
      return { round: parsed.round, answers: parsed.answers, asked: parsed.asked, nonce: parsed.nonce, expiresAt: parsed.exp };
    },
  };
}
