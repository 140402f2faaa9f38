declare module '../../contract/module.js' {
  interface ModuleSettings {
    invitations: InvitationSettings;
  }
}

export interface InvitationSettings {
  /** Where an invitation is claimed, `{code}` standing for its code; undefined: this service's own page. */
  urlTemplate: string | undefined;
}

/**
 * MONETA_INVITATIONS_URL: the operator's claim page (a wallet app's link, `https://pay.example.com/i/{code}`).
 * Without it, invitations link to this service's own page, `<PUBLIC_URL>/hosted/invitations/{code}`.
 */
export function readInvitationSettings(environment: Readonly<Record<string, string | undefined>>): InvitationSettings {
  const raw = environment.MONETA_INVITATIONS_URL;
  if (raw === undefined || raw === '') return { urlTemplate: undefined };
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw.replace('{code}', 'code'));
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !raw.includes('{code}')) {
    throw new Error(`MONETA_INVITATIONS_URL must be an http(s) URL containing {code} (such as https://pay.example.com/i/{code}), got "${raw}"`);
  }
  return { urlTemplate: raw };
}
