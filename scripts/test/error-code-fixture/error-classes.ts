// Error classes for scripts/src/gates/error-codes.test.ts: one of each way a code can be missing or misspelt.

export class Uncoded extends Error {}

export class KebabCoded extends Error {
  readonly code = 'bad-code';
}

export class NodeStyleCoded extends Error {
  readonly code = 'ERR_SOMETHING_FAILED';
}

export class LooselyCoded extends Error {
  readonly code: string = 'FINE_AT_RUN_TIME';
}

export class WellCoded extends Error {
  readonly code: 'NOT_FOUND' | 'GONE' = 'GONE';
}

export class InheritsItsCode extends WellCoded {}

export class UncodedTypeError extends TypeError {}

/** Not an error: no code needed. */
export class Plain {
  readonly code = 'not-an-error';
}
