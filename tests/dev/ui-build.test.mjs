// The UI build leaves what it did not change as it found it: cargo reruns the host's
// build script when anything under ui/dist is newer than its last run, and the host crate
// then relinks every test binary, so a rebuild that wrote the same bytes must give them
// their earlier times back (ui/build.mjs, keepTimes), and one that changed a file must not.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keepTimes, snapshotTimes } from '../../ui/build.mjs';

test('a rebuild gives unchanged files and folders their times back, and leaves changed and new ones newer', async () => {
  const root = mkdtempSync(join(tmpdir(), 'lastwords-dist-'));
  const dist = join(root, 'dist');
  const write = (files) => {
    rmSync(dist, { recursive: true, force: true });
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(join(dist, name, '..'), { recursive: true });
      writeFileSync(join(dist, name), body);
    }
  };
  try {
    write({ 'server.js': 'same', 'assets/app.css': 'same', 'card/fonts/a.ttf.br': 'old', 'card/version': 'same' });
    const before = await snapshotTimes(dist);
    const old = (name) => before.get(join(dist, name)).mtime.getTime();
    await sleep(50);
    write({ 'server.js': 'same', 'assets/app.css': 'same', 'card/fonts/a.ttf.br': 'new', 'card/version': 'same', 'card/fonts/b.ttf.br': 'added' });
    await keepTimes(before);
    const now = (name) => statSync(join(dist, name)).mtime.getTime();

    for (const name of ['server.js', 'assets/app.css', 'card/version', 'assets', '.']) {
      assert.equal(now(name), old(name), `${name} kept its time`);
    }
    for (const name of ['card/fonts/a.ttf.br', 'card/fonts']) {
      assert.ok(now(name) > old(name) + 25, `${name} changed, so it is newer`);
    }
    assert.ok(now('card/fonts/b.ttf.br') > old('card/version') + 25, 'a new file is newer');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a first build, with nothing before it, keeps no times', async () => {
  const before = await snapshotTimes(join(tmpdir(), 'lastwords-no-such-dist'));
  assert.equal(before.size, 0);
  await keepTimes(before);
});
