import { lastEventId } from '../../http/event-stream.js';
import type { Routes } from '../../http/routes.js';
import { RequestLogList, RequestLogQuery } from './schemas.js';
import type { RequestLogService } from './service.js';

export function requestLogRoutes(r: Routes, { requestLogs }: { requestLogs: RequestLogService }): void {
  r.getOrStream(
    '/logs/requests',
    {
      schema: {
        tags: ['Logs'],
        summary: "The platform's recent API requests: method, path, status, error code, request id, duration; or followed as a server-sent event stream",
        description:
          'Every request made with this platform’s credentials (its API tokens and its agents), newest first by default, kept for MONETA_REQUEST_LOG_DAYS days. ' +
          'With `Accept: text/event-stream` the answer is a stream of `request` events (the same object as a list item) as requests complete; `Last-Event-ID` resumes, `createdAfter` replays. ' +
          'A request appears within a fraction of a second of its answer (rows are written in batches).',
        querystring: RequestLogQuery,
        response: { 200: RequestLogList },
      },
    },
    (scope, req) => requestLogs.list(scope, req.query),
    (scope, req) => requestLogs.openStream(scope, req.query, lastEventId(req)),
  );
}
