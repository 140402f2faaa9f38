import { invalidInput } from '../../../core/errors.js';

/** A virtual asset service provider (an exchange or custodian) a wallet can be held at. */
export interface Vasp {
  vaspName: string;
  url?: string;
}

/**
 * The VASP directory: exchanges and custodians a customer's wallet may be held at, by the name
 * clients send back as `accountInfo.vaspName`. Built in (configuration, not data): a deployment
 * that needs another edits this list. Sorted by name, which is also the list's paging key.
 */
export const VASPS: readonly Vasp[] = [
  { vaspName: 'Binance', url: 'https://www.binance.com' },
  { vaspName: 'Bitfinex', url: 'https://www.bitfinex.com' },
  { vaspName: 'Bitget', url: 'https://www.bitget.com' },
  { vaspName: 'Bitso', url: 'https://bitso.com' },
  { vaspName: 'Bitstamp', url: 'https://www.bitstamp.net' },
  { vaspName: 'BitGo', url: 'https://www.bitgo.com' },
  { vaspName: 'Bybit', url: 'https://www.bybit.com' },
  { vaspName: 'Coinbase', url: 'https://www.coinbase.com' },
  { vaspName: 'Crypto.com', url: 'https://crypto.com' },
  { vaspName: 'Fireblocks', url: 'https://www.fireblocks.com' },
  { vaspName: 'Gemini', url: 'https://www.gemini.com' },
  { vaspName: 'HTX', url: 'https://www.htx.com' },
  { vaspName: 'Kraken', url: 'https://www.kraken.com' },
  { vaspName: 'KuCoin', url: 'https://www.kucoin.com' },
  { vaspName: 'Luno', url: 'https://www.luno.com' },
  { vaspName: 'Mercado Bitcoin', url: 'https://www.mercadobitcoin.com.br' },
  { vaspName: 'OKX', url: 'https://www.okx.com' },
  { vaspName: 'Robinhood', url: 'https://robinhood.com' },
  { vaspName: 'Revolut', url: 'https://www.revolut.com' },
  { vaspName: 'Strike', url: 'https://strike.me' },
  { vaspName: 'Upbit', url: 'https://upbit.com' },
  { vaspName: 'Uphold', url: 'https://uphold.com' },
  { vaspName: 'Valr', url: 'https://www.valr.com' },
  { vaspName: 'Yellow Card', url: 'https://yellowcard.io' },
].sort((a, b) => compareNames(a.vaspName, b.vaspName));

function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

const BY_NAME = new Map(VASPS.map((vasp) => [vasp.vaspName.toLowerCase(), vasp]));

/** The directory's spelling of a VASP name (matched without regard to case); undefined when it is not listed. */
export function canonicalVaspName(name: string): string | undefined {
  return BY_NAME.get(name.trim().toLowerCase())?.vaspName;
}

/**
 * One page of the directory. The cursor is the last name of the previous page (base64url), so a
 * page never repeats or skips a name, even when the list is edited between two pages.
 */
export function listVasps(params: { limit?: number | undefined; cursor?: string | undefined }): { data: Vasp[]; hasMore: boolean; nextCursor?: string } {
  const limit = params.limit ?? 20;
  let after: string | undefined;
  if (params.cursor !== undefined) {
    after = Buffer.from(params.cursor, 'base64url').toString('utf8');
    if (after.length === 0 || Buffer.from(after, 'utf8').toString('base64url') !== params.cursor) {
      throw invalidInput([{ field: 'cursor', message: 'cursor is not a cursor this list returned' }], 'cursor is not a cursor this list returned');
    }
  }
  const rest = after === undefined ? VASPS : VASPS.filter((vasp) => compareNames(vasp.vaspName, after) > 0);
  const data = rest.slice(0, limit);
  const hasMore = rest.length > limit;
  return { data: data.map((vasp) => ({ ...vasp })), hasMore, ...(hasMore ? { nextCursor: Buffer.from(data[data.length - 1]!.vaspName, 'utf8').toString('base64url') } : {}) };
}
