// The gateway's delegation: delegated tokens by RFC 8693 token exchange, why one could not be had,
// and what a caller may do through an app (for tools/list).
export { createDelegatedTokens, type DelegatedToken, type DelegatedTokens, type DelegatedTokensOptions, type DelegationTarget } from './delegated-tokens.ts';
export { DelegationError, delegationErrorCodes, isDelegationError, type DelegationErrorCode, type DelegationErrorOptions } from './delegation-error.ts';
export { createPermissionProbe, type PermissionProbe, type PermissionProbeOptions } from './permission-probe.ts';
