import type { CustomerId } from '../../core/ids.js';
import type { ContactChange, CustomerView } from './service.js';
import type { SignedRequestChallenge } from '../../core/signature.js';

declare module '../../core/reactions.js' {
  interface ReactionCatalogue {
    /** A customer was deleted: nothing may spend for it any more. */
    'customer.deleted': { customerId: CustomerId };
    /** A customer was created, its accounts open (the wallet module opens its embedded wallet). */
    'customer.created': { customer: { id: CustomerId; email: string | null; holderName: string; region: string | null } };
  }
}

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * A change of a customer's email or phone number. A gate answers a challenge to sign (202) or
     * nothing to let it go ahead, and throws on a bad signature (the wallet module: a contact tied to
     * an embedded wallet's OTP credential changes only with that wallet's signature).
     */
    'customer.contactChange': { subject: ContactChange; verdict: SignedRequestChallenge | undefined };
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
