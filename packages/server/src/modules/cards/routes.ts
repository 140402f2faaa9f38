import { walletSignatureOf } from '../../core/signature.js';
import type { Routes } from '../../http/routes.js';
import { WalletSignatureHeaders } from '../../http/schema-kit.js';
import { notImplemented } from '../../core/errors.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { customerNotFound } from '../customers/errors.js';
import { SIGNATURE_ERRORS } from '../signatures/errors.js';
import type { CardService } from './service.js';
import { Card, CardCreateRequest, CardList, CardListQuery, CardParams, CardRevealResponse, CardUpdateRequest } from './schemas.js';
import {
  cardAlreadyClosed,
  cardClosed,
  cardholderNotApproved,
  cardNotFound,
  cardNotMutable,
  fundingSourceIneligible,
  invalidStateTransition,
  platformCardIdTaken,
} from './errors.js';

const tags = ['Cards'];

export function cardRoutes(r: Routes, { cards }: { cards: CardService }): void {
  r.post(
    '/cards',
    {
      schema: {
        tags,
        summary: 'Issue a virtual debit card to an APPROVED customer',
        description:
          'maxSpendPerTransaction (optional) caps what one authorization may take, in the card currency’s smallest unit. The card starts PROCESSING while the issuer provisions it; CARD.STATE_CHANGE announces ACTIVE (or CLOSED with ISSUER_REJECTED). Funding sources are the cardholder’s ACTIVE internal accounts, in one card-eligible currency (PATCH /config cardConfig.eligibleCurrencies; USD and USDB by default), in the order authorizations try them.',
        body: CardCreateRequest,
        response: { 201: Card },
      },
      status: 201,
      errors: [customerNotFound, cardholderNotApproved, internalAccountNotFound, fundingSourceIneligible, platformCardIdTaken, notImplemented],
    },
    (uow, req) => cards.create(uow, req.body),
  );

  r.get('/cards', { schema: { tags, summary: 'List cards', querystring: CardListQuery, response: { 200: CardList } } }, (scope, req) => cards.list(scope, req.query));

  r.get('/cards/:id', { schema: { tags, summary: 'Get a card', params: CardParams, response: { 200: Card } }, errors: [cardNotFound] }, (scope, req) =>
    cards.get(scope, req.params.id),
  );

  r.patch(
    '/cards/:id',
    {
      schema: {
        tags,
        summary: 'Freeze, unfreeze or close a card, replace its funding sources, or set its per-transaction limit',
        description:
          'At least one of state, fundingSources, maxSpendPerTransaction. state moves ACTIVE <-> FROZEN and ACTIVE | FROZEN -> CLOSED (anything else: 409 INVALID_STATE_TRANSITION; closing a CLOSED card: CARD_ALREADY_CLOSED; any other change to a CLOSED card: CARD_NOT_MUTABLE); fundingSources replaces the ordered list; maxSpendPerTransaction sets the limit, null clears it; CLOSED takes neither. The platform credential alone applies it (200). Service-Wallet-Signature and Request-Id are optional: when sent (the signed retry of a challenge issued before the 202 leg was retired) the signature must verify, else 401 and nothing changes.',
        params: CardParams,
        headers: WalletSignatureHeaders,
        body: CardUpdateRequest,
        response: { 200: Card },
      },
      errors: [cardNotFound, cardAlreadyClosed, cardNotMutable, invalidStateTransition, internalAccountNotFound, fundingSourceIneligible, ...SIGNATURE_ERRORS],
    },
    (uow, req) => cards.update(uow, req.params.id, req.body, walletSignatureOf(req.headers)),
  );

  r.post(
    '/cards/:id/reveal',
    {
      schema: {
        tags,
        summary: 'Get a single-use link to a page that shows the card number, expiry and CVV',
        description:
          'Render panEmbedUrl in an iframe at once: it works once, for five minutes, and only inside the origins listed in cardConfig.revealFrameAncestors. The number never passes through the platform’s servers.',
        params: CardParams,
        response: { 200: CardRevealResponse },
      },
      errors: [cardNotFound, cardClosed],
    },
    (uow, req) => cards.reveal(uow, req.params.id),
  );
}
