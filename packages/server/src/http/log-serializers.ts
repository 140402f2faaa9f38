/** Hosted links carry their secret in the path. */
const HOSTED_TOKEN_IN_URL = /(\/hosted\/(?:kyc|cards\/reveal)\/)[^/?#]+/;

/**
 * The request as logged: method and path, with the hosted link's secret and every query value
 * redacted (query strings carry personal data such as `?email=`); the parameter names stay.
 */
export function logRequest(req: { method: string; url: string; ip?: string }): Record<string, unknown> {
  const [path = '', query] = req.url.split('?', 2) as [string, string | undefined];
  const safePath = path.replace(HOSTED_TOKEN_IN_URL, '$1[redacted]');
  const safeQuery = query === undefined ? '' : `?${query.split('&').map((pair) => `${pair.split('=', 1)[0]}=[redacted]`).join('&')}`;
  return { method: req.method, url: `${safePath}${safeQuery}`, remoteAddress: req.ip };
}

/**
 * An error as logged: its kind, message, code and stack, never the SQL statement or the parameters
 * a database error carries (they hold what a client sent).
 */
export function logError(error: Error): { type: string; message: string; stack: string; code?: unknown } {
  const { code } = error as { code?: unknown };
  return { type: error.name, message: error.message, ...(code !== undefined ? { code } : {}), stack: error.stack ?? '' };
}
