import type { Id } from '../../core/ids.js';

declare module '../../core/ids.js' {
  interface IdPrefixes {
    /** A UMA lookup (ReceiverUmaLookupResponse.lookupId): names the receiver and the sender looked up, nothing stored. */
    Lookup: true;
    /** A payment another VASP asked this one to receive (the reference in its pay request response). */
    UmaPayment: true;
  }
}

export type LookupId = Id<'Lookup'>;
export type UmaPaymentId = Id<'UmaPayment'>;
