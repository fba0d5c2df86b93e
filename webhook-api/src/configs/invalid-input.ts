// A configuration that breaks one of its rules: the field it is about and what to fix, in words safe
// to show. The HTTP edge answers it as 400 VALIDATION_FAILED; nothing below the edge knows of HTTP.

export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
  readonly code = 'INVALID_INPUT';
  /** The request field the rule is about. */
  readonly field: string;

  constructor(field: string, detail: string) {
    super(`${field}: ${detail}`);
    this.field = field;
  }
}

export const invalid = (field: string, detail: string) => new InvalidInputError(field, detail);
