import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../core/errors.js';
import { allows, type AuthContext, type Permission, type TokenAuth } from '../core/auth.js';
import type { RouteConfig } from './routes.js';

export type { AuthContext };

/** Checks API credentials; the tokens module provides it. */
export interface CredentialVerifier {
  verify(user: string, secret: string): Promise<TokenAuth | undefined>;
}

/** Checks an agent's bearer token; the agents module provides it. */
export interface AgentTokenVerifier {
  verifyAgentToken(token: string): Promise<AuthContext | undefined>;
}

/** `Authorization: Bearer <token>`, or undefined. */
export function parseBearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+([A-Za-z0-9._~+/-]{16,512}=*)\s*$/i.exec(header) : null;
  return match?.[1];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
  interface FastifyContextConfig extends RouteConfig {
    /** No API credentials (hosted pages, health, the API document). */
    public?: boolean;
  }
}

/** Splits `Authorization: Basic base64(user:secret)`; the user may be the token's clientId or its `ApiToken:<uuid>` id. */
export function parseBasic(header: string | undefined): { user: string; secret: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  let split = decoded.indexOf(':');
  if (decoded.startsWith('ApiToken:')) split = decoded.indexOf(':', 'ApiToken:'.length);
  if (split <= 0) return undefined;
  return { user: decoded.slice(0, split), secret: decoded.slice(split + 1) };
}

export function requiredPermission(request: FastifyRequest): Permission {
  return request.routeOptions.config.permission ?? (request.method === 'GET' || request.method === 'HEAD' ? 'VIEW' : 'TRANSACT');
}

/**
 * Resolves the caller: the platform from Basic credentials (and checks the route's permission), or,
 * on agent routes, the agent from its bearer token. Neither kind of credential works on the other's routes.
 */
export function createAuthenticator(tokens: CredentialVerifier, agents?: AgentTokenVerifier) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    if (request.routeOptions.config.public) return;
    if (request.routeOptions.config.agent) {
      const token = parseBearer(request.headers.authorization);
      if (!token) throw unauthorized("Agent routes take the agent's access token: Authorization: Bearer <accessToken>");
      const agent = await agents?.verifyAgentToken(token);
      if (!agent) throw unauthorized('The access token is not valid, or its agent was deleted');
      request.auth = agent;
      return;
    }
    const credentials = parseBasic(request.headers.authorization);
    if (!credentials) throw unauthorized('Send API credentials as HTTP Basic: <api token id>:<api client secret>');
    const token = await tokens.verify(credentials.user, credentials.secret);
    if (!token) throw unauthorized('The API credentials are not valid');
    const needed = requiredPermission(request);
    if (!allows(token.permissions, needed)) throw forbidden(needed);
    request.auth = token;
  };
}
