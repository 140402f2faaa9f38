import type { CustomerKind, VerificationSubmission } from '../../providers/kyc-provider.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
 body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0;padding:0 1rem}
 main{max-width:30rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px #0001}
 h1{font-size:1.4rem;margin-top:0} label{display:block;margin:1rem 0 .25rem;font-weight:600}
 input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #c8ccd4;border-radius:6px;font:inherit}
 button,.button{margin-top:1.5rem;width:100%;padding:.75rem;border:0;border-radius:6px;background:#3454d1;color:#fff;font:inherit;font-weight:600;cursor:pointer;text-align:center;text-decoration:none;display:block}
 .note{color:#5a6272;font-size:.9rem} .status{font-weight:700}
 .notice{background:#fff4d6;border-radius:6px;padding:.75rem}
</style></head><body><main>${body}</main></body></html>`;
}

/**
 * The verification form, starting with `values` (what the platform sent, or what the person just
 * submitted). `undecided`: the last submission could not be decided on, and the link still works.
 */
export function verificationForm(
  customerType: CustomerKind,
  values: VerificationSubmission,
  token: string,
  sandbox: boolean,
  undecided = false,
): string {
  const business = customerType === 'BUSINESS';
  const value = (v: unknown) => (typeof v === 'string' ? ` value="${escapeHtml(v)}"` : '');
  const fields = business
    ? `<label for="legalName">Legal name</label><input id="legalName" name="legalName" required maxlength="200"${value(values.legalName)}>
       <label for="registrationNumber">Registration number</label><input id="registrationNumber" name="registrationNumber" required maxlength="100"${value(values.registrationNumber)}>`
    : `<label for="fullName">Full name</label><input id="fullName" name="fullName" required maxlength="200" autocomplete="name"${value(values.fullName)}>
       <label for="birthDate">Date of birth</label><input id="birthDate" name="birthDate" type="date"${value(values.birthDate)}>
       <label for="nationality">Nationality (two-letter code)</label><input id="nationality" name="nationality" maxlength="2"${value(values.nationality)}>`;
  const deciding = business ? 'registration number' : 'full name';
  const hint = sandbox
    ? `<p class="note" id="sandbox-hint">Sandbox: the decision follows the last three characters of the ${deciding}: 001 pending, 002 rejected, 004 on hold, anything else approved; 003 decides nothing (nothing is recorded and this link stays usable).</p>`
    : '';
  const notice = undecided
    ? `<p class="notice" id="undecided">Nothing could be decided from these details, so nothing was recorded and this link still works. Check the ${deciding} and submit again.</p>`
    : '';
  const title = business ? 'Verify your business' : 'Verify your identity';
  return layout(
    title,
    `<h1>${title}</h1>${notice}
     <form method="post" action="/hosted/kyc/${escapeHtml(token)}">${fields}
     <button type="submit" id="submit">Submit for verification</button></form>${hint}`,
  );
}

export function alreadyApproved(): string {
  return layout('Already verified', '<h1>Already verified</h1><p>This customer is already verified. Nothing more is needed.</p>');
}

export function linkProblem(state: 'unknown' | 'expired' | 'used'): string {
  const message = {
    unknown: 'This verification link is not valid.',
    expired: 'This verification link has expired. Ask for a new one.',
    used: 'This verification link was already used. Ask for a new one if you need to verify again.',
  }[state];
  return layout('Verification link unavailable', `<h1>Link unavailable</h1><p id="problem">${message}</p>`);
}

export function submitted(status: string): string {
  return layout(
    'Verification submitted',
    `<h1>Thank you</h1><p>Your details were submitted. Status: <span class="status" id="status">${escapeHtml(status)}</span>.</p><p class="note">You can close this page.</p>`,
  );
}
