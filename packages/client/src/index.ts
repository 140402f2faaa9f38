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
