import type { CustomerId } from '../../core/ids.js';
import type { CustomerView } from './service.js';

declare module '../../core/reactions.js' {
  interface ReactionCatalogue {
    /** A customer was deleted: nothing may spend for it any more. */
    'customer.deleted': { customerId: CustomerId };
  }
}

declare module '../../core/events.js' {
  interface EventCatalogue {
    'CUSTOMER.KYC_APPROVED': CustomerView;
    'CUSTOMER.KYC_REJECTED': CustomerView;
    'CUSTOMER.KYC_PENDING': CustomerView;
    'CUSTOMER.KYC_HOLD': CustomerView;
    'CUSTOMER.KYB_APPROVED': CustomerView;
    'CUSTOMER.KYB_REJECTED': CustomerView;
    'CUSTOMER.KYB_PENDING': CustomerView;
    'CUSTOMER.KYB_HOLD': CustomerView;
  }
}

export const CUSTOMER_EVENTS = [
  'CUSTOMER.KYC_APPROVED',
  'CUSTOMER.KYC_REJECTED',
  'CUSTOMER.KYC_PENDING',
  'CUSTOMER.KYC_HOLD',
  'CUSTOMER.KYB_APPROVED',
  'CUSTOMER.KYB_REJECTED',
  'CUSTOMER.KYB_PENDING',
  'CUSTOMER.KYB_HOLD',
] as const;
