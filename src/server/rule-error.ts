/** A business rule said no: a stable code, a catalog key for the message, and the HTTP status to use. */
export class RuleError extends Error {
  constructor(
    readonly code: string,
    readonly key: string,
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 502 | 503,
    readonly params: Record<string, unknown> = {},
    readonly fields: Record<string, string> = {},
  ) {
    super(code);
  }
}
