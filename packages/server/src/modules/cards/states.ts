import type { CardState } from './tables.js';

export const CARD_STATES: readonly CardState[] = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'];

/** The changes a platform may make (PATCH state): ACTIVE <-> FROZEN, ACTIVE | FROZEN -> CLOSED. */
export function platformMayMove(from: CardState, to: CardState): boolean {
  if (from === 'ACTIVE') return to === 'FROZEN' || to === 'CLOSED';
  if (from === 'FROZEN') return to === 'ACTIVE' || to === 'CLOSED';
  return false;
}
