import type { Routes } from '../../http/routes.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import { verificationNotFound } from './errors.js';
import { Verification, VerificationListQuery, VerificationListResponse, VerificationParams, VerificationRequest } from './schemas.js';
import type { VerificationService } from './service.js';

const tags = ['KYC/KYB Verifications'];

export function verificationRoutes(r: Routes, { verifications }: { verifications: VerificationService }): void {
  r.post(
    '/verifications',
    {
      schema: {
        tags,
        summary: "Submit a customer's KYC (individual) or KYB (business) verification",
        description: 'Answers the verification: RESOLVE_ERRORS listing everything missing (fields, beneficial owners, documents), or the submission in review (IN_PROGRESS or PENDING_MANUAL_REVIEW), decided later by webhook. Post again after resolving errors.',
        body: VerificationRequest,
        response: { 200: Verification },
      },
      errors: [customerNotFound, customerDeleted],
    },
    (uow, req) => verifications.submit(uow, req.body.customerId),
  );

  r.get('/verifications', { schema: { tags, summary: 'List verifications', querystring: VerificationListQuery, response: { 200: VerificationListResponse } } }, (scope, req) => verifications.list(scope, req.query));

  r.get('/verifications/:verificationId', { schema: { tags, summary: 'Get a verification', params: VerificationParams, response: { 200: Verification } }, errors: [verificationNotFound] }, (scope, req) =>
    verifications.get(scope, req.params.verificationId),
  );
}
