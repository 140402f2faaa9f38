import { MonetaApiError } from '../errors.js';

/** A failure the user can act on, printed as lines on stderr (never a stack trace). Exit 1, or 2 for usage errors. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad arguments: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Network failures come from fetch as `TypeError: fetch failed` with the real reason in `cause`. */
export function networkReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return 'the request timed out';
  if (!(error instanceof TypeError)) return undefined;
  const cause = error.cause as { code?: unknown; message?: unknown; errors?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message;
  return error.message;
}

/** The lines to print and the exit code for any error a command threw. */
export function describeError(error: unknown): { lines: string[]; exitCode: 1 | 2 } {
  if (error instanceof MonetaApiError) {
    const lines = [`${error.code}: ${error.message}`];
    for (const field of error.fieldErrors) lines.push(`  ${field.field}: ${field.message}`);
    const reason = (error.details as { reason?: unknown } | undefined)?.reason;
    if (typeof reason === 'string') lines.push(`  reason: ${reason}`);
    if (error.requestId) lines.push(`  request id: ${error.requestId}`);
    return { lines, exitCode: 1 };
  }
  if (error instanceof CliError) return { lines: [error.message], exitCode: error.exitCode };
  const network = networkReason(error);
  if (network !== undefined) return { lines: [`cannot reach the Moneta API: ${network}`], exitCode: 1 };
  const message = error instanceof Error ? error.message : String(error);
  return { lines: [`error: ${message}`], exitCode: 1 };
}
