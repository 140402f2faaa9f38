import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schema-kit.js';
import { COLUMNS } from './columns.js';

const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];

/** How the multipart form is documented; the file streams, so the service checks the parts itself. */
const multipartForm = Type.Object(
  { file: Type.String({ format: 'binary', description: `Required. The CSV file, header first; columns: ${COLUMNS.join(', ')}` }) },
  { required: [] },
);

/** The JSON alternative (clients that cannot send multipart, small files): the CSV base64-encoded. */
const jsonForm = Type.Object(
  {
    file: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'The CSV file, base64-encoded (the body limit bounds it; send large files as multipart)' }),
    fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const BulkCsvUploadBody = { content: { 'multipart/form-data': { schema: multipartForm }, 'application/json': { schema: jsonForm } } };

export const BulkCustomerImportJobAccepted = Type.Object({ jobId: Type.String(), status: Type.String({ enum: ['PENDING', 'PROCESSING'] }) });

export const BulkCustomerImportErrorEntry = Type.Object({
  correlationId: Type.String({ description: 'The row’s platformCustomerId, or row_<line> when it has none' }),
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'line (the row’s line in the file, the header being line 1) and errors (every invalid column)' })),
});

export const BulkCustomerImportJob = Type.Object({
  id: Type.String(),
  status: Type.String({ enum: STATUSES }),
  progress: Type.Object({ total: Type.Integer(), processed: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() }),
  errors: Type.Optional(Type.Array(BulkCustomerImportErrorEntry, { description: 'The failed rows in file order (the first 1000; progress.failed counts them all)' })),
  completedAt: Type.Optional(Timestamp),
});

export const BulkJobParams = Type.Object({ jobId: Id('Job') });
