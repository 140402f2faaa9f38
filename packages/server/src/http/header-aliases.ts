import type { FastifyInstance } from 'fastify';
import { invalidInput } from '../core/errors.js';

/**
 * Request headers the reference names with its product name, read under ours (interface.md names
 * the wallet signature header `Service-Wallet-Signature`; the reference's own clients, its CLI
 * among them, send `Grid-Wallet-Signature`). The alias is renamed before anything reads headers,
 * so every route sees one name; both sent with different values is refused.
 */
const HEADER_ALIASES: readonly { alias: string; name: string }[] = [{ alias: 'grid-wallet-signature', name: 'service-wallet-signature' }];

/** Header values that must never reach a log line, under either name. */
export const SECRET_HEADER_LOG_PATHS = ['req.headers.authorization', ...['service-wallet-signature', ...HEADER_ALIASES.map((a) => a.alias)].map((h) => `req.headers["${h}"]`)];

export function acceptHeaderAliases(app: FastifyInstance): void {
  // Callback-style: every request passes here, and an async hook would cost each a promise and a turn.
  app.addHook('onRequest', (request, _reply, done) => {
    for (const { alias, name } of HEADER_ALIASES) {
      const value = request.headers[alias];
      if (value === undefined) continue;
      const current = request.headers[name];
      if (current !== undefined && current !== value) {
        done(invalidInput([{ field: name, message: `${name} and ${alias} name the same header and differ; send one` }]));
        return;
      }
      request.headers[name] = value;
      delete request.headers[alias];
    }
    done();
  });
}
