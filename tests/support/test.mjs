// node:test with a deadline on every test and hook, so a stuck `await` fails that test
// by name (and its `after` hooks still stop its hosts) instead of holding the run until
// CI gives up. A test that needs longer passes its own `{ timeout }`.
import * as nodeTest from 'node:test';

/** Longest a test or hook may take unless it asks for more; the slowest take about a minute. */
export const DEFAULT_TIMEOUT_MS = 180_000;

/** `test(name, [options], fn)`, as node:test's, with the default deadline. */
export function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  return nodeTest.test(name, { timeout: DEFAULT_TIMEOUT_MS, ...options }, fn);
}

/** `before(fn, [options])`, as node:test's, with the default deadline. */
export const before = (fn, options) => nodeTest.before(fn, { timeout: DEFAULT_TIMEOUT_MS, ...options });

/** `after(fn, [options])`, as node:test's, with the default deadline. */
export const after = (fn, options) => nodeTest.after(fn, { timeout: DEFAULT_TIMEOUT_MS, ...options });
