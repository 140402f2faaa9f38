import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { notImplemented } from '../../core/errors.js';
import { CustomerParams } from '../customers/schemas.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import { alreadyVerified, attemptsExceeded, codeExpired, codeInvalid, contactMissing, deliveryFailed, verificationNotRequired } from './errors.js';
import { ContactVerificationConfirmRequest, CustomerWithContactVerification } from './schemas.js';
import type { ContactVerificationService } from './service.js';
import type { Channel } from './regions.js';

const tags = ['Contact Verification'];

const CHANNELS: { channel: Channel; path: string; what: string; by: string }[] = [
  { channel: 'EMAIL', path: 'verify-email', what: 'email address', by: 'by email' },
  { channel: 'PHONE', path: 'verify-phone', what: 'phone number', by: 'by SMS' },
];

export function contactVerificationRoutes(r: Routes, { contactVerification }: { contactVerification: ContactVerificationService }): void {
  for (const { channel, path, what, by } of CHANNELS) {
    r.postOutsideTransaction(
      `/customers/:customerId/${path}`,
      {
        schema: {
          tags,
          summary: `Send a ${what} verification code to a customer`,
          description: `Sends (or resends: the earlier code stops working) a one-time code ${by} to the customer's ${what}. Only customers in the EEA verify their contacts; others get 409 CONFLICT (details.reason CONTACT_VERIFICATION_NOT_REQUIRED), as does a ${what} already verified (CONTACT_ALREADY_VERIFIED) or missing (CONTACT_MISSING). In the sandbox the code is 123456 (000000 is taken too). The body is empty.`,
          params: CustomerParams,
          response: { 204: Type.Null() },
        },
        status: 204,
        errors: [customerNotFound, customerDeleted, verificationNotRequired, alreadyVerified, contactMissing, deliveryFailed, notImplemented],
      },
      (scope, req) => contactVerification.send(scope, req.params.customerId, channel),
    );

    r.postOutsideTransaction(
      `/customers/:customerId/${path}/confirm`,
      {
        schema: {
          tags,
          summary: `Confirm a customer's ${what} verification code`,
          description: `Checks the code sent by POST /customers/{customerId}/${path}; the right one makes contactVerification.${channel === 'EMAIL' ? 'email' : 'phone'} VERIFIED and is used up. A wrong code answers 400 INVALID_INPUT (details.reason CODE_INVALID, with attemptsRemaining); after 5 wrong tries the code stops working (CODE_ATTEMPTS_EXCEEDED); an expired, used, superseded or never-sent code is CODE_EXPIRED. Both contacts must be VERIFIED before the customer can begin KYC.`,
          params: CustomerParams,
          body: ContactVerificationConfirmRequest,
          response: { 200: CustomerWithContactVerification },
        },
        errors: [customerNotFound, customerDeleted, verificationNotRequired, alreadyVerified, contactMissing, codeInvalid, codeExpired, attemptsExceeded],
      },
      (scope, req) => contactVerification.confirm(scope, req.params.customerId, channel, req.body.code),
    );
  }
}
