export { API_VERSION, apiBaseUrl, createMonetaClient, type MonetaClient, type MonetaClientOptions, type MonetaResponse, type PathsWithMethod, type SuccessBody } from './client.js';
export { isMonetaApiError, MonetaApiError, type ApiErrorCode, type FieldError, type OperationErrorCode } from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { components, paths } from './generated/schema.js';
export * from './wallet/index.js';
export {
  parseWebhookEvent,
  verifyWebhookSignature,
  WebhookVerificationError,
  type ParseWebhookEventInput,
  type RawBody,
  type VerifyWebhookSignatureInput,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookVerificationErrorCode,
} from './webhooks.js';
export { openStream, streamEvents, streamRequestLogs, type EventType, type RequestLogEntry, type StreamedEvent, type StreamEventsOptions, type StreamMessage, type StreamOptions, type StreamRequestLogsOptions } from './event-stream.js';
