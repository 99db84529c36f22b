// Edits a file of the checkout for a test, and puts it back: when the test calls the
// returned function, and whatever else happens when the process ends (a failed assertion,
// a deadline, SIGTERM or SIGINT), so no test leaves the tree changed.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url).pathname;

/** Files edited and not yet put back, with their original text. */
const edited = new Map();

/** Files made for a test and not yet removed. */
const made = new Set();

process.on('exit', () => {
  for (const [file, original] of edited) writeFileSync(file, original);
  for (const file of made) rmSync(file, { force: true });
});
// Without a listener these signals end the process with no 'exit' event.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
}

/**
 * Writes `change(text)` over the checkout's `relative` file; returns the function that
 * puts the original back (it may be called more than once).
 */
export function editFile(relative, change) {
  const file = new URL(relative, `file://${root}`).pathname;
  const original = readFileSync(file, 'utf8');
  if (!edited.has(file)) edited.set(file, original);
  writeFileSync(file, change(original));
  return () => {
    if (!edited.has(file)) return;
    writeFileSync(file, edited.get(file));
    edited.delete(file);
  };
}

/**
 * Makes the checkout's `relative` file, which must not exist, holding `text`; returns the
 * function that removes it (it may be called more than once).
 */
export function createFile(relative, text) {
  const file = new URL(relative, `file://${root}`).pathname;
  writeFileSync(file, text, { flag: 'wx' });
  made.add(file);
  return () => {
    if (!made.delete(file)) return;
    rmSync(file, { force: true });
  };
}
