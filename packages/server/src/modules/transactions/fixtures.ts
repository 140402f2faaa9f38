import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /transactions/:transactionId/cancel': { reason: 'REQUESTED_AFTER_HOURS' },
    'POST /transactions/:transactionId/confirm': { receiptDeliveryConfirmedAt: '2025-08-15T14:31:00Z' },
  },
};
