import type { Routes } from '../../http/routes.js';
import { closingOnEarlyRefusal, uploadParts } from '../documents/upload.js';
import { bulkJobNotFound, UPLOAD_ERRORS } from './errors.js';
import { BulkCsvUploadBody, BulkCustomerImportJob, BulkCustomerImportJobAccepted, BulkJobParams } from './schemas.js';
import type { BulkCustomerService } from './service.js';

const tags = ['Customers'];

export function bulkCustomerRoutes(r: Routes, { bulkCustomers }: { bulkCustomers: BulkCustomerService }): void {
  r.post(
    '/customers/bulk/csv',
    {
      schema: {
        tags,
        summary: 'Upload customers via CSV file',
        description:
          'multipart/form-data with the CSV in the `file` part, streamed: the rows are staged as the file arrives and a job creates the customers in batches, ' +
          'each row by the rules of POST /customers. 202 with the job id; GET /customers/bulk/jobs/{jobId} shows its progress and every failed row with its line. ' +
          'A JSON body with the file base64-encoded is taken too, within the request body limit.',
        body: BulkCsvUploadBody,
        response: { 202: BulkCustomerImportJobAccepted },
      },
      status: 202,
      multipart: true,
      errors: UPLOAD_ERRORS,
    },
    (uow, req) => closingOnEarlyRefusal(req, bulkCustomers.upload(uow, uploadParts(req, bulkCustomers.maxBytes))),
  );

  r.get(
    '/customers/bulk/jobs/:jobId',
    { schema: { tags, summary: 'Get bulk import job status', params: BulkJobParams, response: { 200: BulkCustomerImportJob } }, errors: [bulkJobNotFound] },
    (scope, req) => bulkCustomers.get(scope, req.params.jobId),
  );
}
