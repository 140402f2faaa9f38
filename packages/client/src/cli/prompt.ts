import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Asks on the terminal; `hidden` does not echo what is typed (for secrets). */
export async function ask(question: string, options: { hidden?: boolean } = {}): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = rl.question(question);
    muted = options.hidden === true;
    const value = await answer;
    if (options.hidden) process.stderr.write('\n');
    return value.trim();
  } finally {
    rl.close();
  }
}
