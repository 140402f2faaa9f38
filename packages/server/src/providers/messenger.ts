import { createHttpSms } from '../messaging/http-sms.js';
import { createSmtpMailer } from '../messaging/smtp-mailer.js';
import type { Outbound } from '../outbound/guard.js';

/** A one-time code on its way to a person: by email (`to` an address) or by SMS (`to` an E.164 number). */
export interface OtpMessage {
  to: string;
  code: string;
  appName: string;
  expiresInSeconds: number;
  /** The platform's own sender details; without them the installation's sender (MONETA_SMTP_FROM) is used. */
  sender?: { address?: string; name?: string; replyTo?: string; logoUrl?: string };
}

/**
 * How one-time codes reach people. Each channel is real (SMTP, an HTTP SMS provider) when the
 * operator configured it, SANDBOX in sandbox mode otherwise (nothing is sent: the sandbox code is
 * always 000000), and NONE in production otherwise (sending throws MessagingNotConfigured).
 */
export interface Messenger {
  readonly emailDelivery: 'SMTP' | 'SANDBOX' | 'NONE';
  readonly smsDelivery: 'HTTP' | 'SANDBOX' | 'NONE';
  sendEmailCode(m: OtpMessage): Promise<void>;
  sendSmsCode(m: OtpMessage): Promise<void>;
}

/** The provider refused the message or could not be reached. The message names the provider, never the code or credentials. */
export class MessageDeliveryError extends Error {
  override name = 'MessageDeliveryError';
}

/** Production without a configured channel: there is no way to deliver the code. */
export class MessagingNotConfigured extends Error {
  override name = 'MessagingNotConfigured';
}

export interface MessengerSettings {
  mode: 'sandbox' | 'production';
  /** The outbound guard the SMS gateway is called through. */
  outbound: Outbound;
  smtpUrl?: string | undefined;
  smtpFrom?: string | undefined;
  smsUrl?: string | undefined;
  smsToken?: string | undefined;
}

export interface MessengerLog {
  info(obj: object, msg: string): void;
}

/** What createMessenger returns: a Messenger that can also close its pooled SMTP connections (shutdown, tests). */
export type ClosableMessenger = Messenger & { close(): void };

export function createMessenger(settings: MessengerSettings, log?: MessengerLog): ClosableMessenger {
  const sandbox = settings.mode === 'sandbox';
  const mailer = settings.smtpUrl ? createSmtpMailer({ smtpUrl: settings.smtpUrl, smtpFrom: settings.smtpFrom }) : undefined;
  const sms = settings.smsUrl ? createHttpSms({ smsUrl: settings.smsUrl, smsToken: settings.smsToken, outbound: settings.outbound }) : undefined;

  const notSent = (channel: 'email' | 'sms') => async (m: OtpMessage) => {
    log?.info({ channel, to: maskRecipient(m.to) }, `otp ${channel} not sent (sandbox)`);
  };
  const notConfigured = (what: string, setting: string) => async () => {
    throw new MessagingNotConfigured(`No ${what} delivery is configured on this installation (set ${setting})`);
  };

  return {
    emailDelivery: mailer ? 'SMTP' : sandbox ? 'SANDBOX' : 'NONE',
    smsDelivery: sms ? 'HTTP' : sandbox ? 'SANDBOX' : 'NONE',
    sendEmailCode: mailer ? (m) => mailer.send(m) : sandbox ? notSent('email') : notConfigured('email', 'MONETA_SMTP_URL'),
    sendSmsCode: sms ? (m) => sms.send(m) : sandbox ? notSent('sms') : notConfigured('SMS', 'MONETA_SMS_URL'),
    close: () => mailer?.close(),
  };
}

/** `j***@example.com`, `+1********23`: enough to tell recipients apart in a log, not enough to contact them. */
export function maskRecipient(to: string): string {
  const at = to.lastIndexOf('@');
  if (at > 0) return `${to[0]}***${to.slice(at)}`;
  if (to.length <= 4) return '*'.repeat(to.length);
  return to.slice(0, 2) + '*'.repeat(to.length - 4) + to.slice(-2);
}

/** "10 minutes", "1 minute": a code's lifetime as people read it, rounded down so it does not promise more time than it has. */
export function expiryText(expiresInSeconds: number): string {
  const minutes = Math.max(1, Math.floor(expiresInSeconds / 60));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
