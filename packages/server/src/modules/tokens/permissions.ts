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
