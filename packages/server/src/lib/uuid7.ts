import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/** Random bytes for this many ids are drawn at once. */
const IDS_PER_DRAW = 256;
let pool = new Uint8Array(0);
let used = 0;

/**
 * 16 random bytes from a pool refilled every IDS_PER_DRAW ids (Node's own `randomUUID` keeps an
 * entropy cache the same way): uuid's default draws them with one `crypto.getRandomValues` call per
 * id, which was 4-5 % of the CPU of a `GET /customers/{id}` (two ids per request). Each slice is
 * handed out once, from a freshly allocated buffer.
 */
function random16(): Uint8Array {
  if (used + 16 > pool.length) {
    pool = randomFillSync(new Uint8Array(16 * IDS_PER_DRAW));
    used = 0;
  }
  const bytes = pool.subarray(used, used + 16);
  used += 16;
  return bytes;
}

/** The last id's millisecond and sequence: ids made in one millisecond count up, as uuid's own v7 does. */
const state = { msecs: -Infinity, seq: 0 };

/**
 * A UUIDv7 (RFC 9562), monotonic within this process: a later id never sorts before an earlier one.
 * uuid's `v7()` keeps this state only when it draws the random bytes itself, so it is kept here
 * (its `updateV7State`, which the package does not export): a new millisecond starts the sequence
 * from random bits, the same millisecond increments it, and its overflow moves to the next one.
 */
export function uuidv7(): string {
  const random = random16();
  const now = Date.now();
  if (now > state.msecs) {
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    state.msecs = now;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ random, msecs: state.msecs, seq: state.seq });
}
