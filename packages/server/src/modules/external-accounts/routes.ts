import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import {
  ExternalAccount,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  VaspList,
  VaspListQuery,
  ExternalAccountCreateRequest,
  ExternalAccountList,
  ExternalAccountListQuery,
  ExternalAccountParams,
  PlatformExternalAccountCreateRequest,
  PlatformExternalAccountListQuery,
} from './schemas.js';
import type { ExternalAccountInput } from './service.js';
import type { ExternalAccountsModuleService } from './index.js';
import {
  accountAlreadyRegistered,
  challengeExpired,
  externalAccountNotFound,
  beneficiaryTrusted,
  invalidBankAccount,
  noSignatureChallenge,
  ownershipAlreadyVerified,
  ownershipNotApplicable,
  walletSignatureRejected,
} from './errors.js';
import type { OwnershipMethod } from './ownership/service.js';
import type { SignatureScheme } from './ownership/wallet-signatures.js';
import { listVasps } from './ownership/vasps.js';

const tags = ['External Accounts'];

export function externalAccountRoutes(r: Routes, { externalAccounts }: { externalAccounts: ExternalAccountsModuleService }): void {
  r.get(
    '/vasps',
    { schema: { tags: ['VASPs'], summary: 'List the exchanges and custodians a wallet can be held at (values of accountInfo.vaspName)', querystring: VaspListQuery, response: { 200: VaspList } } },
    (_scope, req) => listVasps(req.query),
  );

  for (const owner of ['customer', 'platform'] as const) {
    const base = owner === 'customer' ? '/customers/external-accounts' : '/platform/external-accounts';
    const who = owner === 'customer' ? "a customer's" : "the platform's own";
    r.post(
      base,
      {
        schema: { tags, summary: `Register ${who} bank account or wallet`, body: owner === 'customer' ? ExternalAccountCreateRequest : PlatformExternalAccountCreateRequest, response: { 201: ExternalAccount } },
        status: 201,
        errors: [invalidBankAccount, accountAlreadyRegistered, ...(owner === 'customer' ? [customerNotFound, customerDeleted] : [])],
      },
      (uow, req) => externalAccounts.create(uow, req.body as ExternalAccountInput),
    );
    r.get(
      base,
      { schema: { tags, summary: `List ${who} external accounts`, querystring: owner === 'customer' ? ExternalAccountListQuery : PlatformExternalAccountListQuery, response: { 200: ExternalAccountList } } },
      (scope, req) => externalAccounts.list(scope, owner, req.query),
    );
    r.get(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Get one of ${who} external accounts`, params: ExternalAccountParams, response: { 200: ExternalAccount } }, errors: [externalAccountNotFound] },
      (scope, req) => externalAccounts.get(scope, req.params.externalAccountId, owner),
    );
    r.delete(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Delete one of ${who} external accounts`, params: ExternalAccountParams, response: { 204: Type.Null() } }, errors: [externalAccountNotFound, beneficiaryTrusted] },
      async (uow, req) => {
        await externalAccounts.remove(uow, req.params.externalAccountId, owner);
        return null;
      },
    );
    r.post(
      `${base}/:externalAccountId/challenge`,
      {
        schema: { tags, summary: `Start proving ownership of one of ${who} self-custody wallets`, params: ExternalAccountParams, body: OwnershipChallengeRequest, response: { 201: OwnershipChallenge } },
        status: 201,
        errors: [externalAccountNotFound, ownershipNotApplicable, ownershipAlreadyVerified],
      },
      (uow, req) => externalAccounts.ownership.challenge(uow, req.params.externalAccountId, owner, req.body.method as OwnershipMethod),
    );
    // Its own transaction: a rejected signature leaves the account UNVERIFIED and still answers 400.
    r.postOutsideTransaction(
      `${base}/:externalAccountId/verify`,
      {
        schema: { tags, summary: `Prove ownership of one of ${who} wallets with the signature of the challenge message`, params: ExternalAccountParams, body: OwnershipVerifyRequest, response: { 200: ExternalAccount } },
        errors: [externalAccountNotFound, noSignatureChallenge, walletSignatureRejected, challengeExpired],
      },
      (scope, req) => externalAccounts.ownership.verify(scope, req.params.externalAccountId, owner, req.body.signature, (req.body.signatureScheme ?? 'bip137') as SignatureScheme),
    );
  }
}
