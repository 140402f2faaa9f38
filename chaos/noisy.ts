/**
 * The chaos run's noisy client, a process of its own (run.ts starts it with `node --import tsx`): a
 * caller with an API token of its own that sends cheap authenticated reads (GET /customers?limit=1)
 * as fast as it can, `concurrency` at a time, ignoring Retry-After, from `startAt` until `until`
 * (wall-clock ms). Its own process, so that its loop does not slow the driver's event loop, where
 * the well-behaved clients' latencies are measured.
 *
 * Input: the CHAOS_NOISY environment variable, JSON {url, authorization, concurrency} (in the
 * environment, not the command line, so the secret is not in `ps`), then, once it has said `noisy
 * ready` on stdout, one JSON line {startAt, until} on stdin. Output: one JSON line of NoisyCounts
 * (noisy-check.ts) on stdout when done.
 */
import { rateLimitedProblem, type NoisyCounts } from './noisy-check.js';

interface NoisyInput {
  url: string;
  authorization: string;
  concurrency: number;
}

/** The first line on stdin, as JSON. */
function firstLine(): Promise<{ startAt: number; until: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0) return;
      process.stdin.destroy();
      try {
        resolve(JSON.parse(text.slice(0, end)) as { startAt: number; until: number });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    process.stdin.once('end', () => reject(new Error('stdin closed before the start line')));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const input = JSON.parse(process.env.CHAOS_NOISY ?? '') as NoisyInput;
  const times = firstLine();
  process.stdout.write('noisy ready\n');
  const { startAt, until } = await times;
  await sleep(Math.max(0, startAt - Date.now()));
  const counts: NoisyCounts = { sent: 0, accepted: 0, limited: 0, malformedLimited: 0, other: 0, noAnswer: 0, windowMs: 0 };
  const statuses: Record<string, number> = {};
  counts.otherStatuses = statuses;
  const first = Date.now();
  let last = first;
  const one = async (): Promise<void> => {
    counts.sent++;
    try {
      const response = await fetch(input.url, { headers: { authorization: input.authorization }, signal: AbortSignal.timeout(5000) });
      const text = await response.text();
      if (response.status >= 200 && response.status < 300) counts.accepted++;
      else if (response.status === 429) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const problem = rateLimitedProblem(response.headers.get('retry-after'), body);
        if (problem === undefined) counts.limited++;
        else {
          counts.malformedLimited++;
          counts.firstProblem ??= `${problem}: ${text.slice(0, 200)}`;
        }
      } else {
        counts.other++;
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    } catch {
      counts.noAnswer++;
      // Nothing listens (a refused connection fails at once): do not spin.
      await sleep(50);
    }
    last = Date.now();
  };
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  counts.windowMs = last - first;
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`noisy client: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
