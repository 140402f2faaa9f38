import { expiryText, MessageDeliveryError, type OtpMessage } from '../providers/messenger.js';
import { OutboundError, type Outbound } from '../outbound/guard.js';

const TIMEOUT_MS = 5_000;

export interface HttpSms {
  send(m: OtpMessage): Promise<void>;
}

/**
 * Sends codes through an HTTP SMS gateway: POST `{"to": "+15551234567", "body": "..."}` as JSON to
 * `smsUrl`, with `Authorization: Bearer <smsToken>` when a token is set. Any 2xx means accepted.
 * In production the gateway must be public and https, or inside MONETA_OUTBOUND_ALLOW.
 */
export function createHttpSms(settings: { smsUrl: string; smsToken?: string | undefined; outbound: Outbound }): HttpSms {
  const provider = new URL(settings.smsUrl).host;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.smsToken) headers.authorization = `Bearer ${settings.smsToken}`;

  return {
    async send(m) {
      const body = JSON.stringify({ to: m.to, body: smsText(m) });
      let status: number;
      try {
        // The gateway's answer is not read, let alone echoed: it may quote the message, code included.
        status = (await settings.outbound.request(settings.smsUrl, { method: 'POST', headers, body, timeoutMs: TIMEOUT_MS, maxBodyBytes: 0 })).status;
      } catch (error) {
        throw new MessageDeliveryError(`SMS provider ${provider} ${failureText(error)}`);
      }
      if (status < 200 || status > 299) throw new MessageDeliveryError(`SMS provider ${provider} refused the message (HTTP ${status})`);
    },
  };
}

function failureText(error: unknown): string {
  if (!(error instanceof OutboundError)) return 'could not be reached';
  if (error.failure === 'TIMEOUT') return `did not answer within ${TIMEOUT_MS / 1000} s`;
  if (error.failure === 'REFUSED') return `is not an address this installation may call (${error.message}; see MONETA_OUTBOUND_ALLOW)`;
  return `could not be reached${error.code ? ` (${error.code})` : ''}`;
}

export function smsText(m: OtpMessage): string {
  return `${m.code} is your ${m.appName} code. It expires in ${expiryText(m.expiresInSeconds)}.`;
}
