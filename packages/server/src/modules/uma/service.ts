import { invalidInput } from '../../core/errors.js';
import type { CustomerId, QuoteId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Db } from '../../db/schema.js';
import type { RateSource } from '../../fx/rate-source.js';
import type { Ledger } from '../../ledger/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/sealed.js';
import type { Outbound } from '../../outbound/guard.js';
import { customerNotFound } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { parseUmaAddress } from './address.js';
import { senderHasNoUmaAddress, umaCurrencyNotAccepted } from './errors.js';
import { newId } from '../../core/ids.js';
import { customerAccounts } from '../../ledger/queries.js';
import { createUmaIncoming } from './incoming.js';
import { createUmaKeys } from './keys.js';
import { createPeers, type LocalPeer } from './peer.js';
import { createUmaReceiver } from './receiver.js';
import { createUmaSender } from './sender.js';
import type { UmaSettings } from './settings.js';

export interface UmaDeps {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  ledger: Ledger;
  outbound: Outbound;
  rates: RateSource;
  customers: Pick<CustomerService, 'findActive'>;
  platforms: Pick<PlatformService, 'umaDomain' | 'platformsByUmaDomain' | 'currencyLimits'>;
  transactions: TransactionService;
  settings: UmaSettings;
  /** A VASP answered in process (the sandbox's test VASP); none in production. */
  localPeer?: LocalPeer | undefined;
}

export interface SimulatedReceipt {
  senderUmaAddress: string;
  receiverUmaAddress?: string | undefined;
  customerId?: CustomerId | undefined;
  currency: string;
  amount: bigint;
}

export type UmaService = ReturnType<typeof createUmaService>;

/**
 * UMA between VASPs: this platform's customers pay `$user@domain` at another VASP (sender.ts; the
 * quotes module reaches it through its `quote.umaDestination` and `quote.umaSettle` check points),
 * and other VASPs pay them (receiver.ts, the public endpoints; incoming.ts, the credit and the
 * platform's approval).
 */
export function createUmaService(deps: UmaDeps) {
  const keys = createUmaKeys(deps);
  const peers = createPeers({ db: deps.db, outbound: deps.outbound, localPeer: deps.localPeer });
  const sender = createUmaSender({ ...deps, keys, peers });
  const incoming = createUmaIncoming({
    ledger: deps.ledger,
    transactions: deps.transactions,
    approval: { required: () => deps.settings.incomingApproval, windowMs: deps.settings.approvalWindowMs },
  });
  const receiver = createUmaReceiver({ ...deps, keys, peers, incoming });

  return {
    keys,
    sender,
    receiver,
    incoming,
    lookup: sender.lookup,

    /** `quote.umaDestination`: the paying customer's lookup of the receiver, and the pay request once priced. */
    async quoteDestination(uow: UnitOfWork, subject: { customerId: CustomerId | null; umaAddress: string; currency?: string | undefined; lookupId?: string | undefined }) {
      if (subject.customerId === null) throw senderHasNoUmaAddress();
      return sender.resolve(uow, { customerId: subject.customerId, umaAddress: subject.umaAddress, currency: subject.currency, lookupId: subject.lookupId });
    },

    settle: (uow: UnitOfWork, quoteId: QuoteId) => sender.settle(uow, quoteId),

    /**
     * A payment from another VASP as if its settlement had just arrived (the sandbox's receive
     * simulation): recorded and credited, or left waiting for the platform's decision.
     */
    async receiveSimulated(uow: UnitOfWork, input: SimulatedReceipt, awaitApproval: boolean): Promise<TransactionView> {
      const from = parseUmaAddress(input.senderUmaAddress);
      if (input.customerId === undefined && input.receiverUmaAddress === undefined) {
        throw invalidInput([{ field: 'customerId', message: 'customerId or receiverUmaAddress is required' }]);
      }
      const customer = await deps.customers.findActive(uow.tx, uow.platformId, input.customerId !== undefined ? { id: input.customerId } : { umaAddress: input.receiverUmaAddress! });
      if (!customer) throw customerNotFound();
      const accounts = await customerAccounts(uow.tx, uow.platformId, customer.id);
      const account = accounts.find((a) => a.currency === input.currency);
      if (!account) throw umaCurrencyNotAccepted(input.currency, accounts.map((a) => a.currency));
      const id = newId('UmaPayment');
      await incoming.record(uow.tx, { id, platformId: uow.platformId, customerId: customer.id, accountId: account.id, senderAddress: from.address, senderDomain: from.domain, amount: input.amount, currency: input.currency, at: uow.now });
      return incoming.arrive(uow, (await incoming.lockPayment(uow, id))!, awaitApproval);
    },
  };
}
