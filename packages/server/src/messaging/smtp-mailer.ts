import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import { escapeHtml } from '../lib/html.js';
import { expiryText, MessageDeliveryError, type OtpMessage } from '../providers/messenger.js';

export const DEFAULT_SMTP_FROM = 'Moneta <no-reply@localhost>';

const CONNECT_TIMEOUT_MS = 5_000;
const SOCKET_TIMEOUT_MS = 10_000;
/** A server that trickles its replies defeats the socket timeout; this bounds a whole delivery. */
const DELIVERY_DEADLINE_MS = 20_000;

export interface SmtpMailer {
  send(m: OtpMessage): Promise<void>;
  /** Closes the pooled connections. */
  close(): void;
}

/**
 * Sends codes through the operator's SMTP server, `smtp://user:pass@host:port` (STARTTLS when the
 * server offers it) or `smtps://` (TLS from the start); nodemailer reads further options from the
 * query string (`?requireTLS=true`, `?tls.rejectUnauthorized=false`). Connections are pooled.
 */
export function createSmtpMailer(settings: { smtpUrl: string; smtpFrom?: string | undefined }): SmtpMailer {
  const server = serverName(settings.smtpUrl);
  const from = parseAddress(settings.smtpFrom ?? DEFAULT_SMTP_FROM);
  const transport = nodemailer.createTransport({
    url: settings.smtpUrl,
    pool: true,
    maxConnections: 3,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    dnsTimeout: CONNECT_TIMEOUT_MS,
  });

  return {
    async send(m) {
      const address = m.sender?.address ?? from.address;
      const name = m.sender?.name ?? (m.sender?.address ? '' : from.name);
      try {
        await transport.sendMail({
          from: name ? { name, address } : address,
          ...(m.sender?.replyTo ? { replyTo: m.sender.replyTo } : {}),
          to: m.to,
          // Bounces go to the installation's address, whoever the message is from.
          envelope: { from: from.address, to: m.to },
          subject: `Your ${m.appName} sign-in code`,
          text: otpText(m),
          html: otpHtml(m),
          headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
          signal: AbortSignal.timeout(DELIVERY_DEADLINE_MS),
        });
      } catch (error) {
        throw deliveryError(server, error);
      }
    },
    close: () => transport.close(),
  };
}

function otpText(m: OtpMessage): string {
  return [
    `Your ${m.appName} sign-in code is:`,
    '',
    m.code,
    '',
    `It expires in ${expiryText(m.expiresInSeconds)}. If you did not try to sign in, you can ignore this email.`,
    '',
  ].join('\n');
}

function otpHtml(m: OtpMessage): string {
  const appName = escapeHtml(m.appName);
  const logo = m.sender?.logoUrl && /^https?:\/\//i.test(m.sender.logoUrl) ? `<p><img src="${escapeHtml(m.sender.logoUrl)}" alt="${appName}" height="48"></p>\n` : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Your ${appName} sign-in code</title></head>
<body style="font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; color: #111; line-height: 1.5">
${logo}<p>Your ${appName} sign-in code is:</p>
<p style="font-size: 28px; font-weight: bold; letter-spacing: 4px; font-family: Menlo, Consolas, monospace">${escapeHtml(m.code)}</p>
<p>It expires in ${escapeHtml(expiryText(m.expiresInSeconds))}. If you did not try to sign in, you can ignore this email.</p>
</body>
</html>
`;
}

function parseAddress(value: string): { name: string; address: string } {
  const [first] = addressparser(value, { flatten: true });
  if (!first?.address) throw new Error('The SMTP sender must hold an email address, such as "Moneta <no-reply@example.com>"');
  return { name: first.name, address: first.address };
}

/** host:port only: the URL's user name, password and query stay out of every message. */
function serverName(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return url.port ? `${url.hostname}:${url.port}` : url.hostname;
}

/** The SMTP reply's text may quote the recipient or the message, so only its codes are kept. */
function deliveryError(server: string, error: unknown): MessageDeliveryError {
  const { code, command, responseCode } = (error ?? {}) as { code?: unknown; command?: unknown; responseCode?: unknown };
  const details = [code, command, responseCode].filter((part) => typeof part === 'string' || typeof part === 'number').join(' ');
  const what =
    code === 'EAUTH' || code === 'ENOAUTH'
      ? 'refused the credentials'
      : code === 'EENVELOPE'
        ? 'refused the sender or recipient'
        : code === 'EMESSAGE'
          ? 'refused the message'
          : code === 'EABORT'
            ? `did not take the message within ${DELIVERY_DEADLINE_MS / 1000} s`
            : typeof responseCode === 'number'
              ? 'refused the message'
              : 'could not be reached';
  return new MessageDeliveryError(`SMTP server ${server} ${what}${details ? ` (${details})` : ''}`);
}
