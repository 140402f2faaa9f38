import { request } from 'undici';
import { expiryText, MessageDeliveryError, type OtpMessage } from '../providers/messenger.js';

const TIMEOUT_MS = 5_000;

export interface HttpSms {
  send(m: OtpMessage): Promise<void>;
}

/**
 * Sends codes through an HTTP SMS gateway: POST `{"to": "+15551234567", "body": "..."}` as JSON to
 * `smsUrl`, with `Authorization: Bearer <smsToken>` when a token is set. Any 2xx means accepted.
 */
export function createHttpSms(settings: { smsUrl: string; smsToken?: string | undefined }): HttpSms {
  const provider = new URL(settings.smsUrl).host;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.smsToken) headers.authorization = `Bearer ${settings.smsToken}`;

  return {
    async send(m) {
      const body = JSON.stringify({ to: m.to, body: smsText(m) });
      let status: number;
      try {
        const response = await request(settings.smsUrl, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headersTimeout: TIMEOUT_MS,
          bodyTimeout: TIMEOUT_MS,
        });
        status = response.statusCode;
        // The gateway's answer is not read, let alone echoed: it may quote the message, code included.
        await response.body.dump().catch(() => undefined);
      } catch (error) {
        const name = (error as { name?: unknown }).name;
        const code = (error as { code?: unknown }).code;
        const reason = name === 'TimeoutError' || name === 'AbortError' ? `did not answer within ${TIMEOUT_MS / 1000} s` : `could not be reached${typeof code === 'string' ? ` (${code})` : ''}`;
        throw new MessageDeliveryError(`SMS provider ${provider} ${reason}`);
      }
      if (status < 200 || status > 299) throw new MessageDeliveryError(`SMS provider ${provider} refused the message (HTTP ${status})`);
    },
  };
}

export function smsText(m: OtpMessage): string {
  return `${m.code} is your ${m.appName} code. It expires in ${expiryText(m.expiresInSeconds)}.`;
}
