import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { documentHolderNotFound, documentNotFound, documentSubmitted, UPLOAD_ERRORS } from './errors.js';
import { Document, DocumentListQuery, DocumentListResponse, DocumentParams, DocumentReplaceBody, DocumentUploadBody } from './schemas.js';
import type { DocumentService } from './service.js';
import { closingOnEarlyRefusal, uploadParts } from './upload.js';

const tags = ['Documents'];

export function documentRoutes(r: Routes, { documents }: { documents: DocumentService }): void {
  r.post(
    '/documents',
    {
      schema: {
        tags,
        summary: 'Upload a document for a customer or a beneficial owner',
        description: 'multipart/form-data with the file in the `file` part, streamed (PDF, JPEG or PNG by content; at most 10 MB). A JSON body with the file base64-encoded is taken too, within the request body limit.',
        body: DocumentUploadBody,
        response: { 201: Document },
      },
      status: 201,
      multipart: true,
      errors: [documentHolderNotFound, ...UPLOAD_ERRORS],
    },
    (uow, req) => closingOnEarlyRefusal(req, documents.upload(uow, uploadParts(req, documents.maxBytes))),
  );

  r.get('/documents', { schema: { tags, summary: 'List documents', querystring: DocumentListQuery, response: { 200: DocumentListResponse } } }, (scope, req) => documents.list(scope, req.query));

  r.get('/documents/:documentId', { schema: { tags, summary: 'Get a document', params: DocumentParams, response: { 200: Document } }, errors: [documentNotFound] }, (scope, req) =>
    documents.get(scope, req.params.documentId),
  );

  r.put(
    '/documents/:documentId',
    {
      schema: { tags, summary: 'Replace a document with a new file and metadata', params: DocumentParams, body: DocumentReplaceBody, response: { 200: Document } },
      multipart: true,
      errors: [documentNotFound, ...UPLOAD_ERRORS],
    },
    (uow, req) => closingOnEarlyRefusal(req, documents.replace(uow, req.params.documentId, uploadParts(req, documents.maxBytes))),
  );

  r.delete(
    '/documents/:documentId',
    { schema: { tags, summary: 'Delete a document (not once submitted for verification)', params: DocumentParams, response: { 204: Type.Null() } }, errors: [documentNotFound, documentSubmitted] },
    async (uow, req) => {
      await documents.remove(uow, req.params.documentId);
      return null;
    },
  );
}
