import { invalidInput, type FieldError } from '../../core/errors.js';
import type { InternalAccountId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { moves, OUTSIDE, type Ledger } from '../../ledger/index.js';
import { currencyMismatch, currencyOf } from '../../lib/currencies.js';

const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * A token amount and its value in the base currency's smallest unit. The reference requires the
 * amount to convert exactly to a whole fiat minor unit for the token's decimals (at 6 decimals and
 * USD, a multiple of 10 000): no rounding anywhere.
 */
export function fiatValue(amountText: string, decimals: number, baseCurrency: string): { amount?: bigint; fiat?: bigint; problems: FieldError[] } {
  const amount = BigInt(amountText);
  const fiatDecimals = currencyOf(baseCurrency)?.decimals ?? 2;
  const problem = (message: string) => ({ problems: [{ field: 'amount', message }] });
  if (amount <= 0n) return problem('amount must be greater than zero');
  if (amount > MAX_BIGINT) return problem('amount is too large');
  let fiat: bigint;
  if (decimals >= fiatDecimals) {
    const unit = 10n ** BigInt(decimals - fiatDecimals);
    if (amount % unit !== 0n) return problem(`amount must convert exactly to a whole ${baseCurrency} minor unit: a multiple of ${unit} at ${decimals} decimals`);
    fiat = amount / unit;
  } else {
    fiat = amount * 10n ** BigInt(fiatDecimals - decimals);
  }
  if (fiat > MAX_BIGINT) return problem('amount is too large');
  return { amount, fiat, problems: [] };
}

export type Funding = ReturnType<typeof createFunding>;

/**
 * The money a mint funded from a Moneta internal account moves, through the ledger's named moves:
 * the fiat value is debited into transit when the mint is created (refused, with nothing done, when
 * the account cannot cover it), leaves for the provider when the mint completes, and comes back to
 * the account when it fails or expires. The operation's row lock and its final status make each of
 * the last two happen at most once, and never both. Only the platform's own internal accounts fund a
 * mint: the platform is the issuer, and a customer's balance is not its to spend.
 */
export function createFunding({ ledger }: { ledger: Ledger }) {
  return {
    async debit(uow: UnitOfWork, input: { accountId: InternalAccountId; currency: string; amount: bigint; operationId: string }): Promise<InternalAccountId> {
      const account = await ledger.internalAccount(uow.tx, uow.platformId, input.accountId);
      // The platform issues the coin, so it pays with its own money: a customer's balance is not the issuer's to spend.
      if (account.purpose !== 'PLATFORM') {
        throw invalidInput([{ field: 'fundingSource.accountId', message: "Must be one of the platform's own internal accounts (GET /platform/internal-accounts); a customer's balance cannot fund the platform's mint" }]);
      }
      if (account.currency !== input.currency) throw currencyMismatch(account.currency, input.currency, `The funding account must hold ${input.currency}, the stablecoin's base currency`);
      await ledger.book(uow, { kind: 'STABLECOIN_MINT_DEBIT', description: input.operationId }, moves.debitIntoTransit(input.accountId, input.currency, input.amount));
      return input.accountId;
    },

    /** The mint completed: the money in transit went to the provider. */
    async settle(uow: UnitOfWork, input: { currency: string; amount: bigint; operationId: string }): Promise<void> {
      await ledger.book(uow, { kind: 'STABLECOIN_MINT_SETTLED', description: input.operationId }, moves.settle(OUTSIDE, input.currency, input.amount));
    },

    /** The mint failed or expired: the money in transit goes back to the account it came from. */
    async refund(uow: UnitOfWork, input: { accountId: InternalAccountId; currency: string; amount: bigint; operationId: string }): Promise<void> {
      await ledger.book(uow, { kind: 'STABLECOIN_MINT_REFUND', description: input.operationId }, moves.refund(input.accountId, input.currency, input.amount));
    },
  };
}
