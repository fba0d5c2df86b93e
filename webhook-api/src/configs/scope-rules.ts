// SPEC's scope-level rules: Device forwards everything (no tag, no measurement); Connection one
// connection (tag required, no measurement); Measurement one measurement on one connection (both).
import type { ScopeLevel, ScopeRoute } from '../store/records.ts';
import { invalid } from './invalid-input.ts';

/** A scope body, validated: empty text not yet told apart from none. */
export interface ScopeInput {
  readonly scopeLevel: ScopeLevel;
  readonly connectionTag?: string | null | undefined;
  readonly measurement?: string | null | undefined;
  readonly enabled: boolean;
}

const blank = (value: string | null | undefined) => value === undefined || value === null || value.trim() === '';

/** Checks a scope against its level's rules; empty strings become null. Throws 400 naming the field. */
export function applyScopeRules(input: ScopeInput): ScopeRoute {
  const { scopeLevel } = input;
  const tagGiven = !blank(input.connectionTag);
  const measurementGiven = !blank(input.measurement);
  if (scopeLevel === 'Device' && tagGiven) throw invalid('connectionTag', 'must be empty for scopeLevel Device');
  if (scopeLevel === 'Device' && measurementGiven) throw invalid('measurement', 'must be empty for scopeLevel Device');
  if (scopeLevel !== 'Device' && !tagGiven) throw invalid('connectionTag', `is required for scopeLevel ${scopeLevel}`);
  if (scopeLevel === 'Connection' && measurementGiven) throw invalid('measurement', 'must be empty for scopeLevel Connection');
  if (scopeLevel === 'Measurement' && !measurementGiven) throw invalid('measurement', 'is required for scopeLevel Measurement');
  return {
    scopeLevel,
    connectionTag: tagGiven ? (input.connectionTag ?? null) : null,
    measurement: measurementGiven ? (input.measurement ?? null) : null,
    enabled: input.enabled,
  };
}
