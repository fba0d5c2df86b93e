// The SDK's error type: a stable code, a message safe to show, and the cause kept for the logs.

/** Every code the SDK raises, with the message shown when none more specific is given. */
export const sdkErrorCodes = {
  SETTINGS_INVALID: 'The settings are invalid.',
  PLATFORM_UNAVAILABLE: 'The platform could not be reached or answered with a server error; try again later.',
  PLATFORM_BAD_RESPONSE: 'The platform answered with something this client does not understand.',
  APP_CREDENTIALS_REJECTED: "The platform refused the app's client credentials.",
  APP_TOKEN_REJECTED: "The platform refused the app's access token.",
} as const;

/** One of the SDK's error codes (`sdkErrorCodes`). */
export type SdkErrorCode = keyof typeof sdkErrorCodes;

/** A failure of the platform or of the SDK, with a stable `code`, a message safe to show and the cause. */
export class PlatformError extends Error {
  /** Always `PlatformError`. */
  override readonly name = 'PlatformError';
  /** What failed, one of `sdkErrorCodes`: `PLATFORM_UNAVAILABLE`, `PLATFORM_BAD_RESPONSE`, `APP_CREDENTIALS_REJECTED`, ... */
  readonly code: SdkErrorCode;

  constructor(code: SdkErrorCode, message: string = sdkErrorCodes[code], options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a `PlatformError`, optionally with the given code. */
export function isPlatformError(error: unknown, code?: SdkErrorCode): error is PlatformError {
  return error instanceof PlatformError && (code === undefined || error.code === code);
}
