import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { createMessenger, expiryText, maskRecipient, MessageDeliveryError, MessagingNotConfigured, type ClosableMessenger, type MessengerSettings, type OtpMessage } from '../providers/messenger.js';
import { createOutbound } from '../outbound/guard.js';

const CODE = '482913';
const message = (overrides: Partial<OtpMessage> = {}): OtpMessage => ({ to: 'jane@example.test', code: CODE, appName: 'Acme Wallet', expiresInSeconds: 600, ...overrides });

/** Everything opened by a test, closed after it whatever happened. */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A messenger calling out through the outbound guard of its mode. Production trusts 127.0.0.1 (as
 * an operator whose gateway runs on the same host would, with MONETA_OUTBOUND_ALLOW) unless the
 * test says otherwise.
 */
function messenger(settings: Omit<MessengerSettings, 'outbound'> & { outboundAllow?: string[] }, log?: Parameters<typeof createMessenger>[1]): ClosableMessenger {
  const { outboundAllow = ['127.0.0.1/32'], ...rest } = settings;
  const outbound = createOutbound({ mode: settings.mode, allow: outboundAllow });
  const created = createMessenger({ ...rest, outbound }, log);
  cleanups.push(async () => {
    created.close();
    await outbound.close();
  });
  return created;
}

interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  user: string | undefined;
  raw: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
async function smtpPeer(options: SMTPServerOptions = {}): Promise<{ port: number; received: ReceivedMail[] }> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: options.secure ? [] : ['STARTTLS'],
    authOptional: true,
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, received };
}

interface ReceivedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server on 127.0.0.1 standing in for the SMS gateway. */
async function httpPeer(answer: RequestListener = (_req, res) => res.writeHead(202).end('{"id":"msg_1"}')): Promise<{ url: string; received: ReceivedRequest[] }> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`, received };
}

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The message's header block, folded lines joined. */
function headers(raw: string): string {
  return raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
}

function header(raw: string, name: string): string | undefined {
  return new RegExp(`^${name}: (.*)$`, 'im').exec(headers(raw))?.[1];
}

/** The decoded body of the MIME part of `type`, with LF line ends (enough MIME for the messages nodemailer writes). */
function mimePart(raw: string, type: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(headers(raw))?.[1];
  if (!boundary) throw new Error('not a multipart message');
  for (const part of raw.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    const head = part.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
    if (!new RegExp(`^content-type: ${type}`, 'im').test(head)) continue;
    const body = part.slice(split + 4);
    if (/^content-transfer-encoding: quoted-printable/im.test(head)) {
      const decoded = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(decoded, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
    }
    if (/^content-transfer-encoding: base64/im.test(head)) return Buffer.from(body, 'base64').toString('utf8').replace(/\r\n/g, '\n');
    return body.replace(/\r\n/g, '\n');
  }
  throw new Error(`no ${type} part`);
}

async function deliveryError(promise: Promise<unknown>): Promise<MessageDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MessageDeliveryError);
  return error as MessageDeliveryError;
}

describe('email through SMTP', () => {
  it('delivers the code with credentials from the URL, the platform as sender and no code in the subject', async () => {
    const logins: Array<{ username: string | undefined; password: string | null | undefined }> = [];
    const peer = await smtpPeer({
      authOptional: false,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password });
        if (auth.username === 'mailer' && auth.password === 'p@ss:w/rd') callback(null, { user: 'mailer' });
        else callback(new Error('Invalid username or password'));
      },
    });
    const mail = messenger({ mode: 'production', smtpUrl: `smtp://mailer:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${peer.port}`, smtpFrom: 'Moneta Test <otp@moneta.test>' });
    expect(mail.emailDelivery).toBe('SMTP');

    await mail.sendEmailCode(message({ sender: { name: 'Acme Wallet', address: 'login@acme.test', replyTo: 'help@acme.test' } }));

    expect(logins).toEqual([{ username: 'mailer', password: 'p@ss:w/rd' }]);
    expect(peer.received).toHaveLength(1);
    const [received] = peer.received;
    expect(received!.user).toBe('mailer');
    // Bounces go to the installation; the reader sees the platform.
    expect(received!.mailFrom).toBe('otp@moneta.test');
    expect(received!.rcptTo).toEqual(['jane@example.test']);
    const raw = received!.raw;
    expect(header(raw, 'From')).toBe('Acme Wallet <login@acme.test>');
    expect(header(raw, 'Reply-To')).toBe('help@acme.test');
    expect(header(raw, 'To')).toBe('jane@example.test');
    expect(header(raw, 'Subject')).toBe('Your Acme Wallet sign-in code');
    expect(header(raw, 'Auto-Submitted')).toBe('auto-generated');
    expect(headers(raw)).not.toContain(CODE);
    expect(raw).toContain(CODE);
    const text = mimePart(raw, 'text/plain');
    expect(text).toContain(`Your Acme Wallet sign-in code is:\n\n${CODE}\n`);
    expect(text).toContain('It expires in 10 minutes.');
    expect(mimePart(raw, 'text/html')).toContain(`>${CODE}</p>`);
  });

  it("uses the installation's sender when the platform names none, also in sandbox mode", async () => {
    const peer = await smtpPeer();
    const mail = messenger({ mode: 'sandbox', smtpUrl: `smtp://127.0.0.1:${peer.port}`, smtpFrom: 'Moneta Test <otp@moneta.test>' });
    expect(mail.emailDelivery).toBe('SMTP');

    await mail.sendEmailCode(message());
    await mail.sendEmailCode(message({ to: 'john@example.test', sender: { name: 'Acme' } }));

    expect(peer.received.map((r) => r.rcptTo)).toEqual([['jane@example.test'], ['john@example.test']]);
    expect(header(peer.received[0]!.raw, 'From')).toBe('Moneta Test <otp@moneta.test>');
    expect(header(peer.received[0]!.raw, 'Reply-To')).toBeUndefined();
    expect(header(peer.received[1]!.raw, 'From')).toBe('Acme <otp@moneta.test>');
  });

  it('escapes every value it puts in the HTML part', async () => {
    const peer = await smtpPeer();
    const mail = messenger({ mode: 'production', smtpUrl: `smtp://127.0.0.1:${peer.port}` });

    await mail.sendEmailCode(message({ appName: '<script>alert(1)</script> & "Co"', sender: { logoUrl: 'https://cdn.acme.test/logo.png?a=1&b="x"' } }));
    await mail.sendEmailCode(message({ sender: { logoUrl: 'javascript:alert(1)' } }));

    const html = mimePart(peer.received[0]!.raw, 'text/html');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Your &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot; sign-in code is:');
    expect(html).toContain('<img src="https://cdn.acme.test/logo.png?a=1&amp;b=&quot;x&quot;" alt="&lt;script&gt;');
    // The plain-text part and the subject are not HTML: they carry the name as it is.
    expect(mimePart(peer.received[0]!.raw, 'text/plain')).toContain('Your <script>alert(1)</script> & "Co" sign-in code is:');
    expect(mimePart(peer.received[1]!.raw, 'text/html')).not.toContain('<img');
    expect(header(peer.received[0]!.raw, 'From')).toBe('Moneta <no-reply@localhost>');
  });

  it('speaks TLS from the start with smtps:// and passes URL options on to nodemailer', async () => {
    const peer = await smtpPeer({ secure: true });
    const mail = messenger({ mode: 'production', smtpUrl: `smtps://127.0.0.1:${peer.port}/?tls.rejectUnauthorized=false` });

    await mail.sendEmailCode(message());

    expect(peer.received).toHaveLength(1);
    expect(peer.received[0]!.raw).toContain(CODE);
  });

  it('a refused recipient is a MessageDeliveryError naming the server, without code, recipient or credentials', async () => {
    const peer = await smtpPeer({
      allowInsecureAuth: true,
      onAuth: (_auth, _session, callback) => callback(null, { user: 'mailer' }),
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('5.1.1 <jane@example.test>: mailbox unavailable'), { responseCode: 550 }));
      },
    });
    const mail = messenger({ mode: 'production', smtpUrl: `smtp://mailer:s3cret-pass@127.0.0.1:${peer.port}` });

    const error = await deliveryError(mail.sendEmailCode(message()));

    expect(error.message).toContain(`127.0.0.1:${peer.port}`);
    expect(error.message).toMatch(/refused the sender or recipient \(EENVELOPE .*550\)/);
    for (const secret of [CODE, 'jane', 's3cret-pass', 'mailer']) expect(error.message).not.toContain(secret);
    expect(peer.received).toHaveLength(0);
  });

  it('refused credentials are a MessageDeliveryError without the password', async () => {
    const peer = await smtpPeer({ authOptional: false, allowInsecureAuth: true, onAuth: (_auth, _session, callback) => callback(new Error('Invalid username or password')) });
    const mail = messenger({ mode: 'production', smtpUrl: `smtp://mailer:wrong-pass@127.0.0.1:${peer.port}` });

    const error = await deliveryError(mail.sendEmailCode(message()));

    expect(error.message).toMatch(/^SMTP server 127\.0\.0\.1:\d+ refused the credentials \(EAUTH/);
    for (const secret of [CODE, 'wrong-pass']) expect(error.message).not.toContain(secret);
  });

  it('an unreachable server is a MessageDeliveryError', async () => {
    const port = await closedPort();
    const mail = messenger({ mode: 'production', smtpUrl: `smtp://mailer:s3cret-pass@127.0.0.1:${port}` });

    const error = await deliveryError(mail.sendEmailCode(message()));

    expect(error.message).toMatch(new RegExp(`^SMTP server 127\\.0\\.0\\.1:${port} could not be reached`));
    for (const secret of [CODE, 's3cret-pass']) expect(error.message).not.toContain(secret);
  });
});

describe('SMS through an HTTP gateway', () => {
  it('posts {to, body} as JSON with the bearer token', async () => {
    const peer = await httpPeer();
    const sms = messenger({ mode: 'production', smsUrl: peer.url, smsToken: 'tok_123' });
    expect(sms.smsDelivery).toBe('HTTP');

    await sms.sendSmsCode(message({ to: '+15551234567', appName: 'Acme', expiresInSeconds: 300 }));

    expect(peer.received).toHaveLength(1);
    const [request] = peer.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/sms');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe('Bearer tok_123');
    expect(JSON.parse(request!.body)).toEqual({ to: '+15551234567', body: `${CODE} is your Acme code. It expires in 5 minutes.` });
  });

  it('sends no Authorization header without a token, also in sandbox mode', async () => {
    const peer = await httpPeer((_req, res) => res.writeHead(200).end());
    const sms = messenger({ mode: 'sandbox', smsUrl: peer.url });
    expect(sms.smsDelivery).toBe('HTTP');

    await sms.sendSmsCode(message({ to: '+447700900123', expiresInSeconds: 60 }));

    expect(peer.received[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(peer.received[0]!.body)).toMatchObject({ body: `${CODE} is your Acme Wallet code. It expires in 1 minute.` });
  });

  it('a non-2xx answer is a MessageDeliveryError with the status and nothing of the answer', async () => {
    const peer = await httpPeer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(`{"error":"could not send '${CODE} is your code' to +15551234567"}`));
    const sms = messenger({ mode: 'production', smsUrl: peer.url, smsToken: 'tok_123' });

    const error = await deliveryError(sms.sendSmsCode(message({ to: '+15551234567' })));

    expect(error.message).toBe(`SMS provider ${new URL(peer.url).host} refused the message (HTTP 500)`);
    expect(peer.received).toHaveLength(1);
  });

  it('an unreachable gateway is a MessageDeliveryError', async () => {
    const port = await closedPort();
    const sms = messenger({ mode: 'production', smsUrl: `http://127.0.0.1:${port}/sms`, smsToken: 'tok_123' });

    const error = await deliveryError(sms.sendSmsCode(message({ to: '+15551234567' })));

    expect(error.message).toBe(`SMS provider 127.0.0.1:${port} could not be reached (ECONNREFUSED)`);
    for (const secret of [CODE, 'tok_123']) expect(error.message).not.toContain(secret);
  });

  it('production refuses a gateway on a private or loopback address the operator did not allow, without connecting', async () => {
    const peer = await httpPeer();
    const port = new URL(peer.url).port;
    for (const smsUrl of [peer.url, `https://127.0.0.1:${port}/sms`, `http://0.0.0.0:${port}/sms`]) {
      const sms = messenger({ mode: 'production', smsUrl, smsToken: 'tok_123', outboundAllow: [] });
      const error = await deliveryError(sms.sendSmsCode(message({ to: '+15551234567' })));
      expect(error.message).toMatch(/^SMS provider \S+ is not an address this installation may call \(.+; see MONETA_OUTBOUND_ALLOW\)$/);
      for (const secret of [CODE, 'tok_123']) expect(error.message).not.toContain(secret);
    }
    // An allow-list naming another network does not cover this host either.
    const elsewhere = messenger({ mode: 'production', smsUrl: peer.url, outboundAllow: ['10.0.0.0/8'] });
    await deliveryError(elsewhere.sendSmsCode(message({ to: '+15551234567' })));
    expect(peer.received).toHaveLength(0);
  });

  it('a gateway that does not answer is a MessageDeliveryError once the timeout has passed', async () => {
    const peer = await httpPeer(() => undefined);
    const sms = messenger({ mode: 'sandbox', smsUrl: peer.url });
    const error = await deliveryError(sms.sendSmsCode(message({ to: '+15551234567' })));
    expect(error.message).toBe(`SMS provider ${new URL(peer.url).host} did not answer within 5 s`);
  });
});

describe('channels without settings', () => {
  it('are SANDBOX in sandbox mode: nothing is sent, one log line with the recipient masked and no code', async () => {
    const lines: Array<{ obj: object; msg: string }> = [];
    const sandbox = messenger({ mode: 'sandbox' }, { info: (obj, msg) => lines.push({ obj, msg }) });
    expect(sandbox.emailDelivery).toBe('SANDBOX');
    expect(sandbox.smsDelivery).toBe('SANDBOX');

    await sandbox.sendEmailCode(message());
    await sandbox.sendSmsCode(message({ to: '+15551234567' }));

    expect(lines).toEqual([
      { obj: { channel: 'email', to: 'j***@example.test' }, msg: 'otp email not sent (sandbox)' },
      { obj: { channel: 'sms', to: '+1********67' }, msg: 'otp sms not sent (sandbox)' },
    ]);
    expect(JSON.stringify(lines)).not.toContain(CODE);
    // Without a log it is silent.
    await expect(messenger({ mode: 'sandbox' }).sendEmailCode(message())).resolves.toBeUndefined();
  });

  it('are NONE in production: sending throws MessagingNotConfigured', async () => {
    const none = messenger({ mode: 'production' });
    expect(none.emailDelivery).toBe('NONE');
    expect(none.smsDelivery).toBe('NONE');

    await expect(none.sendEmailCode(message())).rejects.toThrow(MessagingNotConfigured);
    await expect(none.sendEmailCode(message())).rejects.toThrow(/MONETA_SMTP_URL/);
    await expect(none.sendSmsCode(message({ to: '+15551234567' }))).rejects.toThrow(MessagingNotConfigured);
  });

  it('each channel is chosen on its own', () => {
    const mixed = messenger({ mode: 'production', smsUrl: 'http://127.0.0.1:9/sms' });
    expect([mixed.emailDelivery, mixed.smsDelivery]).toEqual(['NONE', 'HTTP']);
  });
});

describe('helpers and settings', () => {
  it('masks recipients and words expiry', () => {
    expect(maskRecipient('jane@example.test')).toBe('j***@example.test');
    expect(maskRecipient('+15551234567')).toBe('+1********67');
    expect(maskRecipient('123')).toBe('***');
    expect([30, 60, 119, 120, 600].map(expiryText)).toEqual(['1 minute', '1 minute', '1 minute', '2 minutes', '10 minutes']);
  });

  it('reads the messaging settings from the environment', () => {
    const config = loadConfig({
      MONETA_SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
      MONETA_SMTP_FROM: 'Acme <otp@acme.test>',
      MONETA_SMS_URL: 'https://sms.example.com/v1/messages',
      MONETA_SMS_TOKEN: 'tok_123',
    });
    expect(config).toMatchObject({ smtpUrl: 'smtps://mailer:secret@smtp.example.com:465', smtpFrom: 'Acme <otp@acme.test>', smsUrl: 'https://sms.example.com/v1/messages', smsToken: 'tok_123' });
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, smtpFrom: 'Moneta <no-reply@localhost>', smsUrl: undefined, smsToken: undefined });
  });

  it('refuses malformed messaging settings without quoting a password', () => {
    expect(() => loadConfig({ MONETA_SMTP_URL: 'http://mailer:secret@smtp.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ MONETA_SMTP_URL: 'http://mailer:secret@smtp.example.com' })).toThrow(/^MONETA_SMTP_URL must be a smtp:\/\/ or smtps:\/\/ URL$/);
    expect(() => loadConfig({ MONETA_SMTP_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ MONETA_SMS_URL: 'ftp://sms.example.com' })).toThrow(/MONETA_SMS_URL must be a http:\/\/ or https:\/\/ URL/);
    expect(() => loadConfig({ MONETA_SMTP_FROM: 'Moneta' })).toThrow(/MONETA_SMTP_FROM must hold an email address/);
  });
});
