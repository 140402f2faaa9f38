import { Type, type TSchema } from 'typebox';
import type { ErrorSpec } from '../core/errors.js';
import { FieldError } from './schema-kit.js';

/**
 * The error responses of one route, by status, for its schema and the OpenAPI document: the body
 * shape, the codes the route can answer with that status (an enum) and, under shared codes, the
 * reasons in `details.reason`.
 */
export function errorResponses(errors: readonly ErrorSpec[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorSpec[]>();
  for (const error of errors) {
    const list = byStatus.get(error.status) ?? [];
    if (!list.some((e) => e.code === error.code && e.reason === error.reason)) list.push(error);
    byStatus.set(error.status, list);
  }
  const responses: Record<number, TSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(list.map((e) => e.code))];
    const reasons = [...new Set(list.flatMap((e) => (e.reason ? [e.reason] : [])))];
    const lines = list.map((e) => `- \`${e.code}\`${e.reason ? ` (reason \`${e.reason}\`)` : ''}: ${e.description}`);
    responses[status] = Type.Object(
      {
        status: Type.Integer({ enum: [status] }),
        code: Type.String({ enum: codes }),
        message: Type.String(),
        details: Type.Optional(
          Type.Object(
            {
              ...(reasons.length > 0 ? { reason: Type.Optional(Type.String({ enum: reasons })) } : {}),
              errors: Type.Optional(Type.Array(FieldError)),
            },
            { additionalProperties: true },
          ),
        ),
      },
      { description: lines.join('\n') },
    );
  }
  return responses;
}
