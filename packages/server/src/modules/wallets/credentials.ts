import type { AuthMethodId, InternalAccountId } from '../../core/ids.js';
import { newId } from '../../core/ids.js';
import { invalidInput, type FieldError } from '../../core/errors.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import type { Db } from '../../db/schema.js';
import type { Sealer } from '../../lib/sealed.js';
import type { OidcIdentity } from '../../lib/oidc.js';
import type { Messenger } from '../../providers/messenger.js';
import type { OtpIssuer } from '../../providers/otp-issuer.js';
import type { EmbeddedWalletSettings } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import { contactMissing, emailOtpExists, lastCredential, oidcTokenInvalid, passkeyExists, passkeyRegistrationInvalid, smsOtpExists } from './errors.js';
import type { BundleSigningKeys } from './keys.js';
import { unlockCredential } from './lockout.js';
import { deliverOtp, issueOtp, type OtpDelivery } from './otp.js';
import { verifyPasskeyRegistration, type RegisteredPasskey } from './passkeys.js';
import { liveCredentials, loadCredential, loadWallet, revokeCredential, type CredentialRow } from './repo.js';
import type { CredentialCreateInput } from './schemas.js';
import { authMethodView, type AuthMethodView } from './view.js';
import { customerFields } from '../customers/queries.js';

export interface CredentialDeps {
  db: Db;
  sealer: Sealer;
  messenger: Messenger;
  /** Makes the one-time codes (providers.otp). */
  codes: OtpIssuer;
  keys: BundleSigningKeys;
  signedRequests: SignedRequestService;
  settings: (executor: Db | UnitOfWork['tx'], scope: Scope) => Promise<EmbeddedWalletSettings>;
  verifyOidc: (token: string, settings: EmbeddedWalletSettings, now: Date, nonce?: string) => Promise<OidcIdentity>;
}

/** Which fields a credential type needs beyond type and accountId, all reported at once. */
function requiredFields(input: CredentialCreateInput): FieldError[] {
  const missing = (field: string): FieldError => ({ field, message: `${field} is required for ${input.type}` });
  const unexpected = (field: string): FieldError => ({ field, message: `${field} is not taken for ${input.type}` });
  const errors: FieldError[] = [];
  const wants: Record<CredentialCreateInput['type'], string[]> = { EMAIL_OTP: [], SMS_OTP: [], OAUTH: ['oidcToken'], PASSKEY: ['nickname', 'challenge', 'attestation'] };
  for (const field of ['oidcToken', 'nickname', 'challenge', 'attestation'] as const) {
    const present = input[field] !== undefined;
    if (wants[input.type].includes(field) && !present) errors.push(missing(field));
    if (!wants[input.type].includes(field) && present) errors.push(unexpected(field));
  }
  return errors;
}

export type CredentialService = ReturnType<typeof createCredentialService>;

export function createCredentialService(deps: CredentialDeps) {
  const { db, signedRequests } = deps;

  return {
    /**
     * Registers a credential. The wallet's first answers 201 at once; any further one needs a
     * signature from a live session of the wallet (202, then 201 on the signed retry). An OTP
     * credential gets a code sent and answers with the bundle to encrypt it to.
     */
    async create(scope: Scope, input: CredentialCreateInput, signature: WalletSignature): Promise<(AuthMethodView & { otpEncryptionTargetBundle?: string }) | SignatureRequired> {
      const fieldErrors = requiredFields(input);
      if (fieldErrors.length > 0) throw invalidInput(fieldErrors);
      await loadWallet(db, scope.platformId, input.accountId);
      const settings = await deps.settings(db, scope);

      // The proofs that need no database: checked before any transaction opens.
      let oidc: OidcIdentity | undefined;
      if (input.type === 'OAUTH') oidc = await deps.verifyOidc(input.oidcToken!, settings, scope.now);
      let passkey: RegisteredPasskey | undefined;
      if (input.type === 'PASSKEY') {
        const checked = await verifyPasskeyRegistration(input.attestation!, input.challenge!, { id: settings.relyingPartyId, origins: settings.allowedOrigins });
        if (!checked.ok) throw passkeyRegistrationInvalid(checked.reason);
        passkey = checked.passkey;
      }
      const bundleKey = await deps.keys.get();

      const outcome = await runUnitOfWork(db, scope, async (uow) => {
        const wallet = await loadWallet(uow.tx, uow.platformId, input.accountId, true);
        const live = await liveCredentials(uow.tx, wallet.account_id);
        if (input.type === 'EMAIL_OTP' && live.some((c) => c.type === 'EMAIL_OTP')) throw emailOtpExists();
        if (input.type === 'SMS_OTP' && live.some((c) => c.type === 'SMS_OTP')) throw smsOtpExists();
        if (passkey && live.some((c) => c.type === 'PASSKEY' && c.webauthn_id === passkey.credentialId)) throw passkeyExists();
        if (oidc && live.some((c) => c.type === 'OAUTH' && c.oidc_issuer === oidc.issuer && c.oidc_subject === oidc.subject && c.oidc_audience === oidc.audience)) {
          throw oidcTokenInvalid('IDENTITY_EXISTS', 'This OAuth identity is already registered on the wallet');
        }
        let contact: string | undefined;
        if (input.type === 'EMAIL_OTP' || input.type === 'SMS_OTP') {
          const customer = await customerFields(uow.tx, wallet.customer_id, ['email', 'phone_number']);
          contact = (input.type === 'EMAIL_OTP' ? customer.email : customer.phone_number) ?? undefined;
          if (!contact) throw contactMissing(input.type === 'EMAIL_OTP' ? 'email' : 'phoneNumber');
        }

        if (live.length > 0) {
          const challenge = await signedRequests.authorize(uow, { action: 'AUTH_CREDENTIAL_CREATE', subjectId: wallet.account_id, accountIds: [wallet.account_id], body: input }, signature);
          if (challenge) {
            challenge.challenge.type = input.type;
            return { challenge };
          }
        }

        const row: CredentialRow = {
          id: newId('AuthMethod'),
          platform_id: uow.platformId,
          account_id: wallet.account_id,
          type: input.type,
          nickname: contact ?? input.nickname ?? oidc?.email ?? oidc?.subject ?? input.type,
          webauthn_id: passkey?.credentialId ?? null,
          webauthn_public_key: passkey?.publicKey ?? null,
          webauthn_counter: BigInt(passkey?.counter ?? 0),
          webauthn_transports: passkey ? passkey.transports : null,
          oidc_issuer: oidc?.issuer ?? null,
          oidc_subject: oidc?.subject ?? null,
          oidc_audience: oidc?.audience ?? null,
          last_challenge_at: null,
          consecutive_otp_failures: 0,
          locked_until: null,
          suspended_at: null,
          revoked_at: null,
          created_at: uow.now,
          updated_at: uow.now,
        };
        await uow.tx.insertInto('auth_credentials').values({ ...row, webauthn_transports: row.webauthn_transports ? JSON.stringify(row.webauthn_transports) : null }).execute();
        const otp = contact ? await issueOtp(uow.tx, uow, row, settings, { codes: deps.codes, sealer: deps.sealer, bundleKey }) : undefined;
        return { row, otp };
      });

      if ('challenge' in outcome) return outcome.challenge!;
      const view = authMethodView(outcome.row);
      if (!outcome.otp) return view;
      await deliverOrUndo(scope, outcome.otp.delivery, settings, outcome.row.id);
      return { ...view, otpEncryptionTargetBundle: outcome.otp.bundle };
    },

    /** The wallet's live credentials (not paginated: a handful); empty for an account the platform does not have. */
    async list({ platformId }: Scope, accountId: InternalAccountId): Promise<{ data: AuthMethodView[] }> {
      const wallet = await db.selectFrom('wallets').select('account_id').where('platform_id', '=', platformId).where('account_id', '=', accountId).executeTakeFirst();
      if (!wallet) return { data: [] };
      return { data: (await liveCredentials(db, wallet.account_id)).map(authMethodView) };
    },

    /** Revokes a credential, signed by a session of another credential of the wallet; the last one stays. */
    async revoke(uow: UnitOfWork, credentialId: AuthMethodId, signature: WalletSignature): Promise<undefined | SignatureRequired> {
      const credential = await loadCredential(uow.tx, uow.platformId, credentialId);
      await loadWallet(uow.tx, uow.platformId, credential.account_id, true);
      const live = await liveCredentials(uow.tx, credential.account_id);
      if (live.length <= 1) throw lastCredential();
      const challenge = await signedRequests.authorize(
        uow,
        { action: 'AUTH_CREDENTIAL_REVOKE', subjectId: credential.id, accountIds: [credential.account_id], body: null, signers: { exceptCredentialId: credential.id } },
        signature,
      );
      if (challenge) {
        challenge.challenge.type = credential.type;
        return challenge;
      }
      await revokeCredential(uow.tx, credential.id, uow.now);
      return undefined;
    },

    /** The platform lifts an OTP lockout (after checking the end user some other way); the count of wrong codes starts again. */
    unlock(uow: UnitOfWork, credentialId: AuthMethodId): Promise<AuthMethodView> {
      return unlockCredential(uow, credentialId);
    },
  };

  /** Sends the code; when it cannot be sent, the credential just made is taken back so nothing is half-done. */
  async function deliverOrUndo(scope: Scope, delivery: OtpDelivery, settings: EmbeddedWalletSettings, credentialId: AuthMethodId): Promise<void> {
    try {
      await deliverOtp(deps.messenger, delivery, settings);
    } catch (error) {
      await runUnitOfWork(db, scope, async (uow) => {
        await uow.tx.deleteFrom('auth_challenges').where('credential_id', '=', credentialId).execute();
        await uow.tx.deleteFrom('auth_credentials').where('id', '=', credentialId).execute();
      });
      throw error;
    }
  }
}
