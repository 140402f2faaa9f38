import type { FastifyInstance } from 'fastify';
import { invalidRequestFormat } from '../core/errors.js';

/** No request body of this API nests anywhere near this deep; anything deeper is refused unread. */
export const MAX_BODY_DEPTH = 32;

/**
 * How deep a JSON text nests (objects and arrays), counted without parsing it: brackets inside
 * strings do not count. Stops counting as soon as `limit` is passed.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Every JSON body of every route is read by Fastify's own parser (prototype-poisoning checks
 * included), after a depth check: a body of thousands of nested arrays is refused with 400 before
 * anything recursive (validation, the idempotency layer's canonical hash) walks it. An empty
 * body is no body, whatever its Content-Type says.
 */
export function boundJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // A client that names JSON but sends nothing (an empty POST) sent no body, not bad JSON.
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(text, MAX_BODY_DEPTH)) {
      done(invalidRequestFormat(`The request body nests deeper than ${MAX_BODY_DEPTH} levels`), undefined);
      return;
    }
    void parse(request, text, done);
  });
}
