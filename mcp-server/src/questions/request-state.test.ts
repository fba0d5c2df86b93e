import { manualClock } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createRequestStates, type RoundState, type StateBinding } from './request-state.ts';

const secret = 'gateway client secret';
const ttlMs = 10 * 60_000;

const binding: StateBinding = {
  callerId: 'u-ada',
  appClientId: 'webhook-tools',
  tool: 'delete_webhook',
  args: { companyId: 7, webhook: { id: 'wh-1', tags: ['boiler', 'north'] } },
};

const state: RoundState = {
  round: 2,
  answers: { confirm: '{"action":"accept","content":{"confirm":true,"code":"tango-7731"}}' },
  asked: { reason: 'elicitation/create', roots: 'roots/list', poem: 'sampling/createMessage' },
};

function statesAt(clock = manualClock(), options: { secret?: string } = {}) {
  return { clock, states: createRequestStates({ secret: options.secret ?? secret, ttlMs, clock }) };
}

describe('request states', () => {
  it('opens what it sealed for the same binding, with its round, answers, questions, nonce and expiry', () => {
    const { clock, states } = statesAt();
    const sealed = states.seal(state, binding);
    const opened = states.open(sealed, binding);
    expect(opened).toEqual({ ...state, nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown, expiresAt: clock() + ttlMs });
  });

  it('opens at another replica that holds the same secret', () => {
    const clock = manualClock();
    const sealed = statesAt(clock).states.seal(state, binding);
    expect(statesAt(clock).states.open(sealed, binding)).toMatchObject(state);
  });

  it.each([
    ['another caller', { callerId: 'u-grace' }],
    ['another app', { appClientId: 'fleet-insights' }],
    ['another tool', { tool: 'create_webhook' }],
    ['other arguments', { args: { companyId: 8, webhook: { id: 'wh-1', tags: ['boiler', 'north'] } } }],
    ['a nested argument changed', { args: { companyId: 7, webhook: { id: 'wh-1', tags: ['north', 'boiler'] } } }],
    ['an argument added', { args: { ...binding.args, force: true } }],
    ['no arguments', { args: {} }],
  ])('is foreign to %s', (_case, change) => {
    const { states } = statesAt();
    const sealed = states.seal(state, binding);
    expect(states.open(sealed, { ...binding, ...change })).toBe('foreign');
  });

  it('opens for the same arguments written in another key order, at every level', () => {
    const { states } = statesAt();
    const sealed = states.seal(state, binding);
    const reordered = JSON.parse('{"webhook":{"tags":["boiler","north"],"id":"wh-1"},"companyId":7}') as Record<string, unknown>;
    expect(states.open(sealed, { ...binding, args: reordered })).toMatchObject(state);
  });

  it('tells a number from the same digits as a string in the arguments', () => {
    const { states } = statesAt();
    const sealed = states.seal(state, { ...binding, args: { companyId: 7 } });
    expect(states.open(sealed, { ...binding, args: { companyId: '7' } })).toBe('foreign');
  });

  it('opens until its time, and is expired from then on', () => {
    const { clock, states } = statesAt();
    const sealed = states.seal(state, binding);
    clock.advance(ttlMs - 1);
    expect(states.open(sealed, binding)).toMatchObject(state);
    clock.advance(1);
    expect(states.open(sealed, binding)).toBe('expired');
    clock.advance(24 * 60 * 60_000);
    expect(states.open(sealed, binding)).toBe('expired');
  });

  it('is foreign once any byte of it is changed', () => {
    const { states } = statesAt();
    const sealed = states.seal(state, binding);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    for (const index of [0, 12, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(states.open(`v1.${tampered.toString('base64url')}`, binding)).toBe('foreign');
    }
    expect(states.open(`v1.${bytes.subarray(0, bytes.length - 1).toString('base64url')}`, binding)).toBe('foreign');
  });

  it.each(['', 'v1.', 'v1.AAAA', 'v2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '{"round":1}'])('is foreign for %j, which it never sealed', (sealed) => {
    expect(statesAt().states.open(sealed, binding)).toBe('foreign');
  });

  it('is foreign under another secret', () => {
    const clock = manualClock();
    const sealed = statesAt(clock).states.seal(state, binding);
    expect(statesAt(clock, { secret: 'another secret' }).states.open(sealed, binding)).toBe('foreign');
  });

  it('does not hold the answers, the keys or the arguments in clear', () => {
    const { states } = statesAt();
    const sealed = states.seal(state, binding);
    const decoded = Buffer.from(sealed.slice(3), 'base64url').toString('latin1');
    for (const text of ['tango-7731', 'confirm', 'elicitation/create', 'wh-1', 'u-ada', 'delete_webhook']) {
      expect(sealed).not.toContain(text);
      expect(decoded).not.toContain(text);
    }
  });

  it('seals the same state differently each time, with another nonce inside', () => {
    const { states } = statesAt();
    const first = states.seal(state, binding);
    const second = states.seal(state, binding);
    expect(second).not.toBe(first);
    const [a, b] = [states.open(first, binding), states.open(second, binding)];
    if (typeof a === 'string' || typeof b === 'string') throw new Error('expected both states to open');
    expect(a.nonce).not.toBe(b.nonce);
  });

  it('keeps the answers a round carries exactly, whatever they hold', () => {
    const { states } = statesAt();
    const answers = { 'a.b-c_1': '{"text":"line\\nbreak \\u202e \\"quoted\\" ünïcödé 🚀"}' };
    expect(states.open(states.seal({ round: 1, answers, asked: {} }, binding), binding)).toMatchObject({ round: 1, answers, asked: {} });
  });
});
