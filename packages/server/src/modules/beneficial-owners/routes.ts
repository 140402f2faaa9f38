import type { Routes } from '../../http/routes.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import { beneficialOwnerNotFound } from './errors.js';
import { BeneficialOwner, BeneficialOwnerCreateRequest, BeneficialOwnerListQuery, BeneficialOwnerListResponse, BeneficialOwnerParams, BeneficialOwnerUpdateRequest } from './schemas.js';
import type { BeneficialOwnerService } from './service.js';

const tags = ['Beneficial Owners'];

export function beneficialOwnerRoutes(r: Routes, { beneficialOwners }: { beneficialOwners: BeneficialOwnerService }): void {
  r.post(
    '/beneficial-owners',
    { schema: { tags, summary: 'Add a beneficial owner, director or officer to a business customer', body: BeneficialOwnerCreateRequest, response: { 201: BeneficialOwner } }, status: 201, errors: [customerNotFound, customerDeleted] },
    (uow, req) => beneficialOwners.create(uow, req.body),
  );

  r.get(
    '/beneficial-owners',
    { schema: { tags, summary: "List a business customer's beneficial owners", querystring: BeneficialOwnerListQuery, response: { 200: BeneficialOwnerListResponse } }, errors: [customerNotFound] },
    (scope, req) => beneficialOwners.list(scope, req.query),
  );

  r.get(
    '/beneficial-owners/:beneficialOwnerId',
    { schema: { tags, summary: 'Get a beneficial owner', params: BeneficialOwnerParams, response: { 200: BeneficialOwner } }, errors: [beneficialOwnerNotFound] },
    (scope, req) => beneficialOwners.get(scope, req.params.beneficialOwnerId),
  );

  r.patch(
    '/beneficial-owners/:beneficialOwnerId',
    {
      schema: { tags, summary: 'Update a beneficial owner (only the fields sent change)', params: BeneficialOwnerParams, body: BeneficialOwnerUpdateRequest, response: { 200: BeneficialOwner } },
      errors: [beneficialOwnerNotFound, customerDeleted],
    },
    (uow, req) => beneficialOwners.update(uow, req.params.beneficialOwnerId, req.body),
  );
}
