// Waiting for something a test cannot be told about, only look at again.
import assert from 'node:assert/strict';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `read` every 100 ms until `accept(value)` holds; resolves to the time that took.
 * After `ms`, fails naming `what` (or what the function `what` returns then) and the last
 * value read.
 */
export async function poll(read, accept, ms, what) {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (accept(value)) return Date.now() - started;
    if (Date.now() - started > ms) assert.fail(`${typeof what === 'function' ? what() : what}: not within ${ms} ms; last ${JSON.stringify(value)?.slice(0, 300)}`);
    await sleep(100);
  }
}

/** Polls until `read` returns `expected` (compared as JSON). */
export function eventually(read, expected, ms, what) {
  return poll(read, (value) => JSON.stringify(value) === JSON.stringify(expected), ms, what);
}
