import type { AgentId, ApiTokenId, CustomerId, PlatformId } from './ids.js';

/**
 * Who may call and what they may do: the permissions an API token holds and the caller a valid
 * credential names. Here rather than in the tokens module because HTTP checks them on every route
 * and http/ knows no module.
 */
export const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const RANK: Record<Permission, number> = { VIEW: 1, TRANSACT: 2, MANAGE: 3 };

/**
 * Permissions are ordered: TRANSACT can do what VIEW can, MANAGE what TRANSACT can. A token holds
 * the union of what its listed permissions allow.
 */
export function allows(held: readonly string[], needed: Permission): boolean {
  return held.some((p) => (RANK[p as Permission] ?? 0) >= RANK[needed]);
}

/** Who called: a platform's API token, or an agent with its bearer token (bound to one customer). */
export type AuthContext = TokenAuth | AgentAuth;

/** Who a valid API credential is: its platform, its token and what it may do. */
export interface TokenAuth {
  platformId: PlatformId;
  tokenId: ApiTokenId;
  permissions: readonly string[];
  agent?: undefined;
}

export interface AgentAuth {
  platformId: PlatformId;
  agent: { id: AgentId; customerId: CustomerId };
}
