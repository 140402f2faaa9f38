/** A constraint a field failed, in the spec's FieldConstraint shape. */
export interface FieldConstraint {
  format?: string;
  pattern?: string;
  enum?: string[];
  minLength?: number;
  maxLength?: number;
}

export interface FieldError {
  field: string;
  constraint?: FieldConstraint;
  message?: string;
}

/**
 * Every failure the API reports is one of these: an HTTP status, a spec code and a message a
 * platform engineer can act on. Thrown from services, rendered in one place (http/errors.ts).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): { status: number; code: string; message: string; details?: Record<string, unknown> } {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function invalidInput(errors: FieldError[], message?: string): AppError {
  const summary =
    message ?? (errors.length === 1 ? `Invalid field: ${errors[0]!.field}` : `${errors.length} fields are invalid`);
  return new AppError(400, 'INVALID_INPUT', summary, { errors });
}

export function notFound(code: string, what: string): AppError {
  return new AppError(404, code, `${what} not found`);
}

export function conflict(code: string, message: string, details?: Record<string, unknown>): AppError {
  return new AppError(409, code, message, details);
}
