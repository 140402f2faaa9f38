/** True when a driver error (pg or PGlite) is a unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  return codeOf(error) === '23505';
}

/**
 * True when PostgreSQL refused a transaction it could not order (serialization failure, 40001) or
 * broke a lock cycle (deadlock, 40P01): the transaction rolled back whole and may simply run again.
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = codeOf(error);
  return code === '40001' || code === '40P01' || isStalePreparedPlan(error);
}

/**
 * True when a statement was refused because its transaction had already failed (25P02,
 * in_failed_sql_transaction) or the savepoint to go back to was never made (3B001): an earlier
 * failure was not rolled back to a savepoint, and nothing more of the transaction can run or commit.
 */
export function isTransactionAborted(error: unknown): boolean {
  const code = codeOf(error);
  return code === '25P02' || code === '3B001';
}

/**
 * PostgreSQL refusing a prepared statement whose tables changed shape under it (0A000 "cached plan
 * must not change result type", after a migration by a newer release): the connection prepares its
 * statements afresh (db/prepared-statements.ts) and the transaction may run again.
 */
export function isStalePreparedPlan(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return codeOf(error) === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

// Class 08 (connection exception), the server going away (57P01 admin shutdown, 57P02 crash
// shutdown, 57P03 cannot connect now) and the socket errors of a server that is not there.
const CONNECTION_LOSS_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// What pg and pg-pool throw, without a code, for the same conditions.
const CONNECTION_LOSS_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'the database system is starting up',
  'the database system is shutting down',
];

/**
 * True when a failure is the database connection's, not the request's: the server restarted,
 * failed over, was unreachable or cut the connection. The work on that connection is lost (and
 * rolled back by the server); the request may be sent again.
 */
export function isConnectionLoss(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 4; depth++) {
    const code = codeOf(current);
    if (code !== undefined && (CONNECTION_LOSS_CODES.has(code) || code.startsWith('08'))) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_LOSS_MESSAGES.some((known) => message.includes(known))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
