// A wall clock a test can step, as NTP or an operator steps a server's: libfaketime,
// preloaded into the host, reads the offset from a file at every call, and leaves the
// monotonic clock alone (which a step does not move).
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LIBRARIES = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
];

/**
 * `env` for the host; `step(seconds)` moves its wall clock that far from the real one.
 * The offset's folder goes once test `t` ends.
 */
export function steppableClock(t) {
  const library = LIBRARIES.find((path) => existsSync(path));
  if (!library) throw new Error('libfaketime is missing: scripts/setup --tests installs it (Debian package faketime)');
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-clock-'));
  const file = join(dir, 'offset');
  writeFileSync(file, '+0');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    env: {
      LD_PRELOAD: library,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      DONT_FAKE_MONOTONIC: '1',
    },
    step(seconds) {
      // Whole or not at all: the host reads the file at every call of the clock.
      writeFileSync(`${file}.next`, `${seconds >= 0 ? '+' : ''}${seconds}`);
      renameSync(`${file}.next`, file);
    },
  };
}
