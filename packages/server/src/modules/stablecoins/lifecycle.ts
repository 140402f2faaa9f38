import type { UnitOfWork } from '../../core/unit-of-work.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { StablecoinIssuer } from '../../providers/stablecoin-issuer.js';
import type { ProviderAccountLinks } from './links.js';
import type { Funding } from './money.js';
import { FINAL_STATUSES, POLL_JOB, type OperationRow } from './operations.js';
import type { StablecoinOperationId } from './tables.js';

/** The longest a poll waits before asking again, whatever the provider suggests. */
const MAX_CHECK_INTERVAL_MS = 6 * 60 * 60_000;

/**
 * What happens to an operation after it was created: the poll job asks the provider where it
 * stands and moves it along CREATED → PENDING_FUNDING / PENDING_PROVIDER → PROCESSING → COMPLETED,
 * FAILED or EXPIRED. The row lock and the final statuses make the end happen once: a mint funded
 * from an internal account is settled (completed) or refunded (failed, expired) exactly once,
 * however often the job runs.
 */
export function createStablecoinLifecycle({ issuer, links, funding }: { issuer: StablecoinIssuer; links: ProviderAccountLinks; funding: Funding }) {
  async function finish(uow: UnitOfWork, row: OperationRow, status: string): Promise<void> {
    if (!row.debited_account_id) return;
    const money = { currency: row.base_currency, amount: row.fiat_minor, operationId: row.id };
    if (status === 'COMPLETED') await funding.settle(uow, money);
    else await funding.refund(uow, { ...money, accountId: row.debited_account_id });
  }

  return {
    async poll(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const row = await uow.tx
        .selectFrom('stablecoin_operations')
        .selectAll()
        .where('platform_id', '=', uow.platformId)
        .where('id', '=', String(payload.stablecoinOperationId) as StablecoinOperationId)
        .forUpdate()
        .executeTakeFirst();
      if (!row || FINAL_STATUSES.includes(row.status)) return;
      const { credentials, providerAccountId } = await links.credentials(uow.tx, uow.platformId, row.stablecoin_provider_account_id);
      const coin = await uow.tx.selectFrom('stablecoins').select('provider_token_identifier').where('id', '=', row.stablecoin_id).executeTakeFirstOrThrow();
      const report = await issuer.report(
        credentials,
        providerAccountId,
        {
          providerOperationId: row.provider_operation_id,
          submission: {
            operationId: row.id,
            operationType: row.operation_type as 'MINT' | 'BURN',
            sourceType: String(row.source.type),
            amount: row.amount_minor,
            fiatAmount: row.fiat_minor,
            baseCurrency: row.base_currency,
            valueType: coin.provider_token_identifier,
            destination: {},
          },
          submittedAt: row.submitted_at,
          expiresAt: row.expires_at,
        },
        uow.now,
      );
      // A mint funded from an internal account already sent its money: it is PROCESSING until final.
      const status = row.debited_account_id && !FINAL_STATUSES.includes(report.status) ? 'PROCESSING' : report.status;
      const final = FINAL_STATUSES.includes(status);
      if (final) await finish(uow, row, status);
      await uow.tx
        .updateTable('stablecoin_operations')
        .set({
          status,
          provider_status: report.providerStatus,
          ...(status === 'FAILED' ? { failure_reason: report.failureReason ?? 'PROVIDER_FAILED' } : {}),
          ...(status === 'EXPIRED' ? { failure_reason: 'FUNDING_NOT_RECEIVED' } : {}),
          updated_at: status !== row.status || report.providerStatus !== row.provider_status ? uow.now : row.updated_at,
        })
        .where('id', '=', row.id)
        .execute();
      if (!final) {
        const after = Math.min(Math.max(report.checkAfterMs ?? 1_000, 1_000), MAX_CHECK_INTERVAL_MS);
        await scheduleJob(uow, { kind: POLL_JOB, payload: { stablecoinOperationId: row.id }, runAt: inMs(uow, after) });
      }
    },
  };
}
