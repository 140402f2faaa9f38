/**
 * The shape every validator in this folder returns. `normalized` is the canonical form to store
 * and compare (separators removed, case fixed); `reason` is a short message fit to show a person.
 * Reasons never repeat the input, so they can be logged without leaking account numbers.
 */
export type Valid<Extra extends object = object> = { ok: true; normalized: string } & Extra;
export type Invalid = { ok: false; reason: string };
export type ValidationResult<Extra extends object = object> = Valid<Extra> | Invalid;

/** Extra facts some validators need that are not part of the number itself. */
export interface ValidationContext {
  /** Bank code the account belongs to (NUBAN check digits depend on it). */
  bankCode?: string;
}

/** A validator as callers look it up by scheme name. */
export type AccountValidator = (input: string, context?: ValidationContext) => ValidationResult;

export function valid(normalized: string): Valid;
export function valid<Extra extends object>(normalized: string, extra: Extra): Valid<Extra>;
export function valid(normalized: string, extra: object = {}): Valid {
  return { ok: true, normalized, ...extra };
}

export function invalid(reason: string): Invalid {
  return { ok: false, reason };
}

/** Longest input any validator looks at; anything longer is refused before parsing. */
export const MAX_INPUT_LENGTH = 8192;

/**
 * Common guard: the input must be a string (callers may pass parsed JSON) of sane length. Returns
 * the trimmed string, or the failure to return.
 */
export function preflight(input: unknown, what: string, maxLength = 256): string | Invalid {
  if (typeof input !== 'string') return invalid(`${what} must be a string`);
  const trimmed = input.trim();
  if (trimmed.length === 0) return invalid(`${what} is empty`);
  if (trimmed.length > Math.min(maxLength, MAX_INPUT_LENGTH)) return invalid(`${what} is too long`);
  return trimmed;
}

/** Removes spaces and hyphens, the separators people type inside bank numbers. */
export function stripSeparators(value: string): string {
  return value.replace(/[\s-]+/g, '');
}

export function isDigits(value: string): boolean {
  return /^[0-9]+$/.test(value);
}

/** "must be 18 digits (got 17)" or "must contain only digits". */
export function digitsProblem(what: string, value: string, min: number, max = min): Invalid | undefined {
  if (!isDigits(value)) return invalid(`${what} must contain only digits`);
  if (value.length < min || value.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    return invalid(`${what} must be ${expected} digits (got ${value.length})`);
  }
  return undefined;
}

/** Digit string to number array; callers have checked `isDigits`. */
export function digitsOf(value: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < value.length; i++) out.push(value.charCodeAt(i) - 48);
  return out;
}
