// The embedded store's file going wrong under a running host, as after a botched restore,
// a full disk, a wrong volume or a stray chmod: the host keeps the last good list and says
// why once, the CLI refuses with the reason, and no byte on disk is changed by either.
// Then backup and restore, online, as an operator would use them.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync,
  renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { allPhrases, cpuTicks, runCli, startHost } from '../support/host.mjs';
import { poll, sleep } from '../support/poll.mjs';

const STORE = 'phrases.sqlite3';
const isRoot = process.getuid?.() === 0;
const nobody = { uid: 65534, gid: 65534 };

/**
 * sha256 and size of the database and its log, where they exist. Not the `-shm`: it is
 * SQLite's index of the log, rebuilt from the log by any reader, and holds no data; nor
 * an empty log, which a connection opening the store makes.
 */
function fingerprint(dir) {
  const out = {};
  for (const suffix of ['', '-wal']) {
    const path = join(dir, STORE + suffix);
    if (suffix && existsSync(path) && statSync(path).isFile() && statSync(path).size === 0) continue;
    if (existsSync(path) && statSync(path).isFile()) {
      const bytes = readFileSync(path);
      out[STORE + suffix] = `${bytes.length}:${createHash('sha256').update(bytes).digest('hex')}`;
    } else if (existsSync(path)) {
      out[STORE + suffix] = 'not a file';
    }
  }
  return out;
}

/** Runs Python's sqlite3 module on `db`: SQL as another program would write it. */
function sqlite(db, sql) {
  execFileSync('python3', ['-c', 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.executescript(sys.argv[2])\nc.commit()\nc.close()', db, sql]);
}

async function words(url) {
  return (await allPhrases(url)).map((p) => p.word).sort();
}

/** Polls `check` until it returns something truthy, and returns that. */
async function until(what, check, ms = 10_000) {
  let last;
  await poll(async () => (last = await check()), Boolean, ms, what);
  return last;
}

async function readyz(url) {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, text: await response.text() };
}

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

const PROBLEM_LINE = /the embedded store cannot be read; still serving the last list/g;

/** A host on a store of the 6 samples plus `extra` phrases added by the CLI while it runs. */
async function hostWithPhrases(extra = 4, options = {}) {
  const host = await startHost({ args: ['--ready-stale-after-s', '1'], ...options });
  for (let i = 0; i < extra; i++) {
    const added = await host.cli('phrases', 'add', `before damage ${i}`, '--name', 'Op');
    assert.equal(added.code, 0, added.stderr);
  }
  await until('the host showing every phrase', async () => (await allPhrases(host.url)).length === 6 + extra);
  return host;
}

/**
 * What every row of the table asks of a damaged store under a running host: the CLI's
 * `add` and `list` refuse with `reason` and the path, nothing on disk changes, the host
 * keeps its list, says so, turns /readyz to 503 with the reason, counts it. That it says
 * so once however often it looks is asked at the recovery (assertRecovers).
 */
async function assertRefusedEverywhere(host, reason, served, hostReason = reason) {
  const path = join(host.dataDir, STORE);
  const before = fingerprint(host.dataDir);
  for (const args of [['add', 'after damage', '--name', 'Op'], ['list'], ['export'], ['backup', join(host.dataDir, 'b.sqlite3')]]) {
    const result = await host.cli('phrases', ...args);
    assert.notEqual(result.code, 0, `phrases ${args[0]} exited 0:\n${result.stdout}`);
    assert.equal(result.stdout, '', `phrases ${args[0]} printed part of a list`);
    assert.ok(result.stderr.includes(path), `phrases ${args[0]} names the path: ${result.stderr}`);
    assert.match(result.stderr, reason, `phrases ${args[0]}`);
    assert.match(result.stderr, /Nothing was changed/);
  }
  assert.ok(!existsSync(join(host.dataDir, 'b.sqlite3')));
  const ready = await until('/readyz 503', async () => {
    const r = await readyz(host.url);
    return r.status === 503 ? r : null;
  });
  assert.match(ready.text, hostReason);
  assert.doesNotMatch(host.log(), /request failed.*\/readyz/, 'a probe\'s 503 is its answer, not a failed request');
  assert.deepEqual(await words(host.url), served, 'the last good list is still served');
  assert.equal(await metric(host.url, 'lastwords_feed_store_problems_total'), 1);
  assert.equal(await metric(host.url, 'lastwords_feed_up'), 0);
  assert.deepEqual(fingerprint(host.dataDir), before, 'no byte of the store changed');
  // Past the re-checks after the last write event (3 s), a host waiting for the store to
  // be put right spends no CPU: its own looks must not wake it again.
  await sleep(3500);
  const ticks = cpuTicks(host.pid);
  await sleep(2000);
  assert.ok(cpuTicks(host.pid) - ticks <= 10, `${cpuTicks(host.pid) - ticks} ticks in 2 s while waiting`);
}

/**
 * The host reads the store again once it is put right, says so, and writes go on. Its
 * look that found the store readable came after every look at the damaged one (one
 * follower looks in turn), so the problem said once by then was said once in all: the
 * follower's unit tests look many times in a row and pin that down, where the black box
 * cannot count looks.
 */
async function assertRecovers(host, expected) {
  await until('/readyz 200 again', async () => {
    const { status, text } = await readyz(host.url);
    return status === 200 && text === 'ready';
  });
  assert.deepEqual(await words(host.url), expected);
  await until('the recovery in the log', () => /the embedded store is readable again/.test(host.log()));
  assert.equal(host.log().match(PROBLEM_LINE)?.length, 1, `the problem said once, not once per look:\n${host.log()}`);
  const added = await host.cli('phrases', 'add', 'after recovery', '--name', 'Op');
  assert.equal(added.code, 0, added.stderr);
  await until(() => `the write after recovery on the host (its log:\n${host.log().split('\n').slice(-15).join('\n')})`, async () => (await words(host.url)).includes('AFTER RECOVERY'));
}

test('truncated to 0 bytes with every commit in the -wal: refused, the log kept byte for byte, a restore brings it back', async () => {
  const host = await hostWithPhrases();
  try {
    const served = await words(host.url);
    const backup = join(host.dataDir, 'before.sqlite3');
    const taken = await host.cli('phrases', 'backup', backup);
    assert.equal(taken.code, 0, taken.stderr);
    assert.match(taken.stdout, /backed up 10 phrases/);
    const wal = join(host.dataDir, `${STORE}-wal`);
    assert.ok(statSync(wal).size > 0, 'the commits are in the log');
    truncateSync(join(host.dataDir, STORE), 0);
    await assertRefusedEverywhere(host, /is empty \(0 bytes\), but its write-ahead log .* holds \d+ bytes/, served);

    const refused = await host.cli('phrases', 'restore', backup);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /a host is serving from this folder.*--online/);
    const damaged = fingerprint(host.dataDir);
    const restored = await host.cli('phrases', 'restore', '--online', backup);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored 10 phrases .* as a new file/);
    const aside = /kept at (.*)$/m.exec(restored.stdout)[1];
    assert.equal(fingerprint(host.dataDir)[STORE].split(':')[0], String(statSync(backup).size));
    // The damaged file and its log are kept, together, under one new name.
    assert.equal(`${statSync(aside).size}`, damaged[STORE].split(':')[0]);
    assert.equal(createHash('sha256').update(readFileSync(`${aside}-wal`)).digest('hex'), damaged[`${STORE}-wal`].split(':')[1]);
    await assertRecovers(host, served);
  } finally {
    await host.stop();
  }
});

test('a host that stops on a truncated store leaves its log on disk', async () => {
  const host = await hostWithPhrases(3);
  const dir = host.dataDir;
  const keep = mkdtempSync(join(tmpdir(), 'lastwords-keep-'));
  try {
    truncateSync(join(dir, STORE), 0);
    await until('/readyz 503', async () => (await readyz(host.url)).status === 503);
    assert.match((await readyz(host.url)).text, /is empty \(0 bytes\), but its write-ahead log .* holds \d+ bytes/);
    const before = fingerprint(dir);
    host.signal('SIGTERM');
    assert.equal((await host.exited).code, 0);
    assert.deepEqual(fingerprint(dir), before, 'the database and its log as they were');
    assert.ok(statSync(join(dir, `${STORE}-wal`)).size > 0);
    for (const name of readdirSync(dir)) renameSync(join(dir, name), join(keep, name));
  } finally {
    await host.stop();
    rmSync(keep, { recursive: true, force: true });
  }
});

for (const [name, damage, reason, hostReason] of [
  ['truncated to half', (path) => truncateSync(path, Math.floor(statSync(path).size / 2) + 100), /is damaged/],
  ['its header overwritten', (path) => {
    const bytes = readFileSync(path);
    bytes.fill(0, 0, 100);
    writeFileSync(path, bytes);
  }, /is not an SQLite database/],
  ['50 MB of garbage written over it', (path) => writeFileSync(path, Buffer.alloc(50 << 20, 0x5a)), /is not an SQLite database/],
  ['another program\'s database copied over it', (path) => {
    const other = `${path}.other`;
    sqlite(other, 'CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (9.5);');
    writeFileSync(path, readFileSync(other));
    rmSync(other);
  }, /another program's SQLite database .*invoices/],
  ['its pages damaged under a sound header, moved in its place', (path) => {
    // Every page but the first (the header and the schema) overwritten, in a copy that
    // is then renamed over the store, as a botched copy would be: only SQLite's own
    // check finds it, and each look opens and closes a connection.
    const bytes = readFileSync(path);
    for (let page = 4096; page < bytes.length; page += 4096) bytes.fill(0x5a, page + 8, page + 4096);
    writeFileSync(`${path}.copy`, bytes);
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    renameSync(`${path}.copy`, path);
  }, /is damaged \((database disk image is malformed|the (quick|integrity) check found \d+ problem)/, /is damaged \(the (quick|integrity) check found \d+ problem\(s\), the first: [^\n]+$/],
  ['its pages damaged in place under a sound header, the file kept', (path) => {
    // As a disk or a stray writer would: the same file, so nothing is reopened, and the
    // changes the host reads next need not touch a damaged page. The log is checkpointed
    // first, so the pages damaged are the ones read, not older copies the log stands for.
    sqlite(path, 'PRAGMA wal_checkpoint(TRUNCATE);');
    const fd = openSync(path, 'r+');
    for (let page = 4096; page < statSync(path).size; page += 4096) writeSync(fd, Buffer.alloc(4096 - 8, 0x5a), 0, 4096 - 8, page + 8);
    closeSync(fd);
  }, /is damaged \((database disk image is malformed|the (quick|integrity) check found \d+ problem)/, /is damaged \(the (quick|integrity) check found \d+ problem\(s\), the first: [^\n]+$/],
  ['another program\'s database moved in its place', (path) => {
    const other = `${path}.other`;
    sqlite(other, 'PRAGMA application_id = 7; CREATE TABLE phrases (x); INSERT INTO phrases VALUES (1);');
    renameSync(other, path);
  }, /another program's SQLite database \(application id 0x7/,
  /was replaced by another file while the previous file's write-ahead log .* is still beside it/],
]) {
  test(`${name}: the host keeps its list and says why once; the CLI refuses and changes nothing`, async () => {
    const host = await hostWithPhrases();
    try {
      const served = await words(host.url);
      const path = join(host.dataDir, STORE);
      const good = join(host.dataDir, 'good.sqlite3');
      assert.equal((await host.cli('phrases', 'backup', good)).code, 0);
      damage(path);
      await assertRefusedEverywhere(host, reason, served, hostReason);
      // Put back as an operator would, by hand: the host reads it afresh.
      for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
      renameSync(good, path);
      await assertRecovers(host, served);
    } finally {
      await host.stop();
    }
  });
}

/**
 * Rewrites, in the database file itself, the key `word` has in the unique index on words
 * to `instead` (the same length, sorting in the same place): the index no longer holds
 * what its table does, and every page still reads as well-formed.
 */
function damageWordIndex(path, word, instead) {
  sqlite(path, 'PRAGMA wal_checkpoint(TRUNCATE);');
  const [pageSize, root] = execFileSync('python3', ['-c', `import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(c.execute('PRAGMA page_size').fetchone()[0], c.execute("SELECT rootpage FROM sqlite_master WHERE name='phrases_word'").fetchone()[0])`, path]).toString().trim().split(' ').map(Number);
  const bytes = readFileSync(path);
  const page = bytes.subarray((root - 1) * pageSize, root * pageSize);
  const at = page.indexOf(Buffer.from(word));
  assert.ok(at >= 0 && page.indexOf(Buffer.from(word), at + 1) < 0, `${word} once in the index's page`);
  page.write(instead, at);
  writeFileSync(path, bytes);
}

test('its unique index no longer holding what its table does (a byte changed in an index page): every write and every whole read refuses, so a taken word is never minted twice', async () => {
  const host = await hostWithPhrases();
  try {
    const good = join(host.dataDir, 'good.sqlite3');
    assert.equal((await host.cli('phrases', 'backup', good)).code, 0);
    const served = await allPhrases(host.url);
    const path = join(host.dataDir, STORE);
    damageWordIndex(path, 'BEFORE DAMAGE 3', 'BEFORE DAMAGE 9');
    const before = fingerprint(host.dataDir);
    const removing = served.find((p) => p.word === 'BEFORE DAMAGE 0');
    const more = join(host.dataDir, 'more.json');
    writeFileSync(more, JSON.stringify([{ word: 'one more', name: 'Op' }]));
    for (const args of [['add', 'before damage 3', '--name', 'Twice'], ['remove', removing.id], ['import', more], ['list'], ['export'], ['backup', join(host.dataDir, 'b.sqlite3')]]) {
      const result = await host.cli('phrases', ...args);
      assert.notEqual(result.code, 0, `phrases ${args[0]} exited 0:\n${result.stdout}`);
      assert.equal(result.stdout, '', `phrases ${args[0]}`);
      assert.ok(result.stderr.includes(path), result.stderr);
      assert.match(result.stderr, /is damaged \(the integrity check found \d+ problem\(s\), the first: [^)]*phrases_word/, `phrases ${args[0]}`);
    }
    assert.deepEqual(fingerprint(host.dataDir), before, 'no byte of the store changed');
    await assert.rejects(startHost({ dataDir: host.dataDir }), /is damaged \(the integrity check found/, 'a second host refuses to start on it');
    assert.deepEqual(await allPhrases(host.url), served, 'the running host serves what it read');
    const restored = await host.cli('phrases', 'restore', '--online', good);
    assert.equal(restored.code, 0, restored.stderr);
    const again = await host.cli('phrases', 'add', 'before damage 3', '--name', 'Twice');
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /already taken/);
    assert.equal((await allPhrases(host.url)).filter((p) => p.word === 'BEFORE DAMAGE 3').length, 1);
  } finally {
    await host.stop();
  }
});

test('one page of its table damaged, far from where a write goes: the write refuses as a read does, and changes nothing', async () => {
  const host = await startHost({
    prepare: async (cli) => {
      const file = join(tmpdir(), `lastwords-many-${process.pid}.json`);
      writeFileSync(file, JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ word: `phrase ${i}`, name: `Owner of phrase ${i}` }))));
      assert.equal((await cli('phrases', 'init')).code, 0);
      const imported = await cli('phrases', 'import', file);
      rmSync(file);
      assert.equal(imported.code, 0, imported.stderr);
    },
  });
  try {
    const path = join(host.dataDir, STORE);
    sqlite(path, 'PRAGMA wal_checkpoint(TRUNCATE);');
    // A leaf of the table (page type 13; names are in the table alone), not its last,
    // where a new row goes.
    const bytes = readFileSync(path);
    const pages = bytes.length / 4096;
    const leaves = Array.from({ length: pages - 1 }, (_, i) => i + 1)
      .filter((i) => bytes[i * 4096] === 13 && bytes.subarray(i * 4096, (i + 1) * 4096).includes('Owner of phrase'));
    assert.ok(leaves.length > 2, `the table's leaves: ${leaves}`);
    const leaf = leaves[0];
    bytes.fill(0x5a, leaf * 4096 + 8, leaf * 4096 + 4096);
    writeFileSync(path, bytes);
    const before = fingerprint(host.dataDir);
    for (const args of [['add', 'a new one', '--name', 'Op'], ['list']]) {
      const result = await host.cli('phrases', ...args);
      assert.notEqual(result.code, 0, `phrases ${args[0]} exited 0:\n${result.stdout}`);
      assert.match(result.stderr, /is damaged \(the integrity check found \d+ problem/, `phrases ${args[0]}`);
    }
    assert.deepEqual(fingerprint(host.dataDir), before, 'no byte of the store changed');
  } finally {
    await host.stop();
  }
});

test("another of our stores moved in place beside the previous file's log: the CLI refuses as the host does, so SQLite never reads that log into it; with the log moved aside both take the new store", async () => {
  const host = await hostWithPhrases();
  const other = mkdtempSync(join(tmpdir(), 'lastwords-other-'));
  try {
    const served = await words(host.url);
    const path = join(host.dataDir, STORE);
    assert.ok(statSync(`${path}-wal`).size > 0, 'the host keeps a log with commits in it');
    assert.equal((await runCli(['phrases', 'init', '--data-dir', other])).code, 0);
    assert.equal((await runCli(['phrases', 'add', 'from the other store', '--name', 'Op', '--data-dir', other])).code, 0);
    copyFileSync(join(other, STORE), `${path}.new`);
    renameSync(`${path}.new`, path);
    // As the operator who saw the host's error and ran the CLI anyway.
    await until('the host says so', async () => /was replaced by another file/.test(host.log()));
    await assertRefusedEverywhere(host, /was replaced by another file while the previous file's write-ahead log .* is still beside it/, served);
    for (const suffix of ['-wal', '-shm']) renameSync(path + suffix, `${path}${suffix}.previous`);
    await until('the host serves the new store', async () => JSON.stringify(await words(host.url)) === JSON.stringify(['FROM THE OTHER STORE']));
    const added = await host.cli('phrases', 'add', 'after the move', '--name', 'Op');
    assert.equal(added.code, 0, added.stderr);
    await until('and follows it', async () => (await words(host.url)).includes('AFTER THE MOVE'));
    const checked = execFileSync('python3', ['-c', 'import sqlite3,sys\nc=sqlite3.connect("file:"+sys.argv[1]+"?mode=ro",uri=True)\nprint(c.execute("PRAGMA integrity_check").fetchone()[0])', path]);
    assert.equal(checked.toString().trim(), 'ok', 'the store moved in is whole');
  } finally {
    await host.stop();
    rmSync(other, { recursive: true, force: true });
  }
});

// As an operator names it: absolute, or relative to where the host was started.
for (const named of ['absolute', 'relative']) {
  test(`the data folder (${named}) moved away and another made at its path: the host says the store is gone, then follows the new one`, async () => {
    const made = mkdtempSync(join(tmpdir(), 'lastwords-test-'));
    const dataDir = named === 'absolute' ? made : relative(process.cwd(), made);
    const old = `${made}.old`;
    let host;
    try {
      host = await hostWithPhrases(1, { dataDir });
      // Past the re-checks after the last change: only an event can wake the host now.
      await sleep(3500);
      renameSync(made, old);
      await until('/readyz 503, the store gone', async () => {
        const { status, text } = await readyz(host.url);
        return status === 503 && /the file was removed/.test(text);
      });
      mkdirSync(made);
      assert.equal((await host.cli('phrases', 'init')).code, 0);
      assert.equal((await host.cli('phrases', 'add', 'in the new folder', '--name', 'Op')).code, 0);
      await until('the host follows the new folder', async () => JSON.stringify(await words(host.url)) === JSON.stringify(['IN THE NEW FOLDER']));
      assert.equal((await readyz(host.url)).status, 200);
      // And goes on following it, by its events.
      assert.equal((await host.cli('phrases', 'add', 'and after', '--name', 'Op')).code, 0);
      await until('a later change too', async () => (await words(host.url)).includes('AND AFTER'), 3000);
    } finally {
      await host?.stop();
      rmSync(old, { recursive: true, force: true });
      rmSync(made, { recursive: true, force: true });
    }
  });
}

test('a data folder that is a symbolic link pointed at another store (ln -sfn, mv -T): the host follows the store it now names', async () => {
  const base = mkdtempSync(join(tmpdir(), 'lastwords-test-'));
  const [blue, green, link] = ['blue', 'green', 'data'].map((name) => join(base, name));
  mkdirSync(blue);
  symlinkSync(blue, link);
  let host;
  try {
    host = await hostWithPhrases(1, { dataDir: link });
    assert.equal((await runCli(['phrases', 'init', '--data-dir', green])).code, 0);
    assert.equal((await runCli(['phrases', 'add', 'on green', '--name', 'Op', '--data-dir', green])).code, 0);
    // Past the re-checks after the last change: only an event can wake the host now.
    await sleep(3500);
    symlinkSync(green, `${link}.new`);
    renameSync(`${link}.new`, link);
    await until('the host serving the store the link names', async () => JSON.stringify(await words(host.url)) === JSON.stringify(['ON GREEN']));
    assert.equal((await host.cli('phrases', 'add', 'through the link', '--name', 'Op')).code, 0);
    await until('a change made through the link', async () => (await words(host.url)).includes('THROUGH THE LINK'), 3000);
    assert.equal((await readyz(host.url)).status, 200);
  } finally {
    await host?.stop();
    rmSync(base, { recursive: true, force: true });
  }
});

// What makes no event where the host watches: a link higher up the path pointed
// elsewhere, a folder mounted over the data folder. Its look at the path, every 30 s,
// finds them.
for (const [change, undo, needsRoot] of [
  ['a link above the data folder pointed at another release', null, false],
  ['a folder bind-mounted over the data folder', 'umount', true],
]) {
  test(`${change}: the host follows the store the path now names within seconds`, { skip: needsRoot && !isRoot && 'needs root to mount' }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'lastwords-test-'));
    const [one, two, current] = ['one', 'two', 'current'].map((name) => join(base, name));
    for (const release of [one, two]) mkdirSync(release);
    symlinkSync(one, current);
    const dataDir = join(current, 'data');
    let host;
    try {
      host = await hostWithPhrases(1, { dataDir });
      const other = join(two, 'data');
      assert.equal((await runCli(['phrases', 'init', '--data-dir', other])).code, 0);
      assert.equal((await runCli(['phrases', 'add', 'the other store', '--name', 'Op', '--data-dir', other])).code, 0);
      await sleep(3500);
      if (undo) {
        execFileSync('mount', ['--bind', other, dataDir]);
      } else {
        symlinkSync(two, `${current}.new`);
        renameSync(`${current}.new`, current);
      }
      await until('the host serving the store the path names', async () => JSON.stringify(await words(host.url)) === JSON.stringify(['THE OTHER STORE']), 40_000);
      assert.equal((await host.cli('phrases', 'add', 'by the path', '--name', 'Op')).code, 0);
      await until('a change made by the path', async () => (await words(host.url)).includes('BY THE PATH'), 3000);
      assert.equal((await readyz(host.url)).status, 200);
    } finally {
      await host?.stop();
      if (undo) spawnSync(undo, [dataDir]);
      rmSync(base, { recursive: true, force: true });
    }
  });
}

test('a file named like the store in the folder above, written again and again, leaves the host idle', async () => {
  const base = mkdtempSync(join(tmpdir(), 'lastwords-test-'));
  const dataDir = join(base, 'data');
  const phrases = join(base, 'phrases.json');
  writeFileSync(phrases, JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ word: `KEPT ${i}`, name: 'Op' }))));
  let host;
  try {
    host = await startHost({
      dataDir,
      prepare: async (cli) => {
        assert.equal((await cli('phrases', 'init')).code, 0);
        assert.equal((await cli('phrases', 'import', phrases)).code, 0);
      },
    });
    await sleep(3500);
    const before = cpuTicks(host.pid);
    // Another program's file, beside the data folder, not in it.
    for (let i = 0; i < 50; i++) {
      writeFileSync(join(base, STORE), `not ours ${i}`, { flag: 'a' });
      await sleep(100);
    }
    const used = cpuTicks(host.pid) - before;
    assert.ok(used <= 10, `${used} ticks (1/100 s) of CPU for 50 writes to another folder's file`);
    assert.equal((await words(host.url)).length, 20_000);
  } finally {
    await host?.stop();
    rmSync(base, { recursive: true, force: true });
  }
});

test('permission denied (chmod 000 under a host run as an ordinary user): said once, with who and what; back when fixed', { skip: !isRoot && 'needs root to run the host as another user' }, async () => {
  const host = await hostWithPhrases(3, { user: nobody });
  try {
    const served = await words(host.url);
    const path = join(host.dataDir, STORE);
    chmodSync(path, 0o000);
    await assertRefusedEverywhere(host, /permission denied: this process \(uid 65534\) cannot read and write .* \(owned by uid 65534, mode 0\)/, served);
    chmodSync(path, 0o644);
    await assertRecovers(host, served);
  } finally {
    await host.stop();
  }
});

test("its log's index (-shm) made unreadable under a host run as an ordinary user: said once; back within seconds when fixed", { skip: !isRoot && 'needs root to run the host as another user' }, async () => {
  const host = await hostWithPhrases(3, { user: nobody });
  try {
    const path = join(host.dataDir, STORE);
    chmodSync(`${path}-shm`, 0o000);
    // Root can still write: a commit the host is told of, and cannot read.
    sqlite(path, "INSERT INTO phrases (id, word, name) VALUES ('byroot', 'BY ROOT', 'Root')");
    const served = await words(host.url);
    await assertRefusedEverywhere(host, /permission denied: this process \(uid 65534\) cannot read and write .*-shm/, served);
    // A change of mode makes no event the host watches for; its look while the store is
    // bad finds it, rather than the minute-long retry of a store whose files are unchanged.
    const fixed = Date.now();
    chmodSync(`${path}-shm`, 0o644);
    await assertRecovers(host, [...served, 'BY ROOT'].sort());
    assert.ok(Date.now() - fixed < 15_000, `back ${Date.now() - fixed} ms after the fix`);
  } finally {
    await host.stop();
  }
});

/** What the CLI lists, as the next process to open the store finds it. */
async function stored(host) {
  const listed = await host.cli('phrases', 'list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout).map((p) => p.word).sort();
}

// A clean-up that takes the -wal and -shm for temporary files. SQLite's processes share
// the log through its index: one process left holding a removed index no longer sees what
// the others commit, and used to copy its stale view into the database as it stopped,
// losing every phrase added since.
test("its log's index (-shm) removed under a running host: later writes reach the host, and none is lost when it stops", async () => {
  const host = await hostWithPhrases(2);
  try {
    const path = join(host.dataDir, STORE);
    rmSync(`${path}-shm`);
    for (const word of ['after index one', 'after index two']) {
      const added = await host.cli('phrases', 'add', word, '--name', 'Op');
      assert.equal(added.code, 0, added.stderr);
    }
    await until('the host showing the writes made after the index was removed', async () => (await words(host.url)).includes('AFTER INDEX TWO'));
    assert.match(host.log(), /phrases\.sqlite3-shm.* was removed or replaced/);
    const expected = await stored(host);
    assert.equal(expected.length, 10);
    assert.deepEqual(await words(host.url), expected);
    host.signal('SIGTERM');
    assert.equal((await host.exited).code, 0);
    assert.deepEqual(await stored(host), expected, 'every acknowledged phrase is still stored');
  } finally {
    await host.stop();
  }
});

test('its write-ahead log (-wal) removed under a running host: the host writes what it held into the database, and the CLI writes again', async () => {
  const host = await hostWithPhrases(2);
  try {
    const path = join(host.dataDir, STORE);
    // The log holds these until a checkpoint; removed, only the host's open file has them.
    assert.ok(statSync(`${path}-wal`).size > 0);
    rmSync(`${path}-wal`);
    const added = await until('the CLI writing again', async () => {
      const result = await host.cli('phrases', 'add', 'after log', '--name', 'Op');
      return result.code === 0 ? result : null;
    });
    assert.match(added.stdout, /AFTER LOG/);
    assert.match(host.log(), /phrases\.sqlite3-wal.* was removed or replaced/);
    const expected = await stored(host);
    assert.equal(expected.length, 9, 'the phrases the removed log held are in the database');
    await until('the host showing the write after', async () => (await words(host.url)).includes('AFTER LOG'));
    assert.deepEqual(await words(host.url), expected);
    host.signal('SIGTERM');
    assert.equal((await host.exited).code, 0);
    assert.deepEqual(await stored(host), expected);
  } finally {
    await host.stop();
  }
});

test('both removed under a running host (rm *-wal *-shm): the commits the log held are kept', async () => {
  const host = await hostWithPhrases(2);
  try {
    const served = await words(host.url);
    const path = join(host.dataDir, STORE);
    rmSync(`${path}-wal`);
    rmSync(`${path}-shm`);
    await until('the host saying what it did', () => /phrases\.sqlite3-wal.* was removed or replaced/.test(host.log()));
    assert.deepEqual(await stored(host), served, 'the next process finds every phrase');
    const added = await host.cli('phrases', 'add', 'after both', '--name', 'Op');
    assert.equal(added.code, 0, added.stderr);
    await until('the host showing the write after', async () => (await words(host.url)).includes('AFTER BOTH'));
    host.signal('SIGTERM');
    assert.equal((await host.exited).code, 0);
    assert.deepEqual(await stored(host), [...served, 'AFTER BOTH'].sort());
  } finally {
    await host.stop();
  }
});

// SQLite's REPLACE deletes the row it conflicts with without running delete triggers, so
// the row's removal must be recorded before the insert or update that replaces it.
for (const [how, sql] of [
  ['INSERT OR REPLACE', "INSERT OR REPLACE INTO phrases (id, word, name) VALUES ('byhandreplace1', 'BEFORE DAMAGE 0', 'Hand')"],
  ['UPDATE OR REPLACE', "UPDATE OR REPLACE phrases SET word = 'BEFORE DAMAGE 0' WHERE word = 'BEFORE DAMAGE 1'"],
]) {
  test(`${how} in another program: the phrase it replaced leaves the host's list`, async () => {
    const host = await hostWithPhrases(2);
    try {
      sqlite(join(host.dataDir, STORE), sql);
      const expected = await stored(host);
      assert.equal(expected.filter((w) => w === 'BEFORE DAMAGE 0').length, 1);
      await until('the host matching the store', async () => JSON.stringify(await words(host.url)) === JSON.stringify(expected));
      const taken = await (await fetch(`${host.url}/api/phrases/check?word=${encodeURIComponent('before damage 0')}`)).json();
      const holder = (await allPhrases(host.url)).find((p) => p.word === 'BEFORE DAMAGE 0');
      assert.equal(JSON.stringify(taken).includes(holder.id), true, `the check names the row that holds it: ${JSON.stringify(taken)}`);
      // INSERT OR IGNORE of a phrase already held changes nothing on the host.
      sqlite(join(host.dataDir, STORE), "INSERT OR IGNORE INTO phrases (id, word, name) VALUES ('byhandignored1', 'BEFORE DAMAGE 0', 'Hand')");
      const added = await host.cli('phrases', 'add', 'after replace', '--name', 'Op');
      assert.equal(added.code, 0, added.stderr);
      await until('the host showing the write after', async () => (await words(host.url)).includes('AFTER REPLACE'));
      assert.deepEqual(await words(host.url), await stored(host));
    } finally {
      await host.stop();
    }
  });
}

test('serve and the CLI never write into anything but a folder with no store', async (t) => {
  const cases = {
    'a 0-byte file': [(path) => writeFileSync(path, ''), /is empty \(0 bytes\), not a phrase store/],
    'another program\'s database': [(path) => sqlite(path, 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'), /another program's SQLite database/],
    'an empty SQLite database': [(path) => sqlite(path, 'PRAGMA user_version = 0;'), null],
    'a directory': [(path) => mkdirSync(path), /is a directory, not a database file/],
    'a log without its database': [(path) => writeFileSync(`${path}-wal`, Buffer.alloc(4096, 1)), /is missing, but its write-ahead log .* \(4096 bytes\) is there/],
  };
  for (const [name, [make, reason]] of Object.entries(cases)) {
    await t.test(name, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lastwords-refuse-'));
      try {
        const path = join(dir, STORE);
        make(path);
        const before = fingerprint(dir);
        const files = readdirSync(dir).sort();
        for (const args of [['serve', '--port', '0'], ['phrases', 'init'], ['phrases', 'list'], ['phrases', 'add', 'x', '--name', 'y']]) {
          const result = await runCli([...args, '--data-dir', dir]);
          assert.notEqual(result.code, 0, `${args.join(' ')} on ${name}`);
          assert.ok(result.stderr.includes(path), result.stderr);
          if (reason) assert.match(result.stderr, reason);
          assert.match(result.stderr, /Nothing was changed\. (Restore|Move|Put|Point)/);
        }
        assert.deepEqual(fingerprint(dir), before);
        assert.deepEqual(readdirSync(dir).sort(), files, 'nothing created beside it');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

test('a store made before stores carried their application id is still opened, and marked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-old-'));
  try {
    assert.equal((await runCli(['phrases', 'init', '--data-dir', dir])).code, 0);
    assert.equal((await runCli(['phrases', 'add', 'old timer', '--name', 'Op', '--data-dir', dir])).code, 0);
    sqlite(join(dir, STORE), 'PRAGMA application_id = 0;');
    const listed = await runCli(['phrases', 'list', '--data-dir', dir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /OLD TIMER/);
    const id = readFileSync(join(dir, STORE)).readUInt32BE(68);
    assert.equal(id.toString(16), '4c577264');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('restore onto a running host with a sound store: one change on the host, the replaced store kept aside', async () => {
  const host = await hostWithPhrases(2);
  try {
    const backup = join(host.dataDir, 'snap.sqlite3');
    assert.equal((await host.cli('phrases', 'backup', backup)).code, 0);
    const atBackup = await words(host.url);
    for (const word of ['later one', 'later two']) assert.equal((await host.cli('phrases', 'add', word, '--name', 'Op')).code, 0);
    const refused = await host.cli('phrases', 'restore', backup);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /a host is serving from this folder/);
    const restored = await host.cli('phrases', 'restore', '--online', backup);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored 8 phrases from .* in one transaction/);
    await until('the host showing the backup', async () => (await words(host.url)).join() === atBackup.join());
    const aside = /kept at (.*)$/m.exec(restored.stdout)[1];
    // The replaced store opens as a store, with the two phrases the restore took out.
    const keptDir = mkdtempSync(join(tmpdir(), 'lastwords-kept-'));
    try {
      writeFileSync(join(keptDir, STORE), readFileSync(aside));
      const kept = await runCli(['phrases', 'list', '--json', '--data-dir', keptDir]);
      assert.equal(kept.code, 0, kept.stderr);
      assert.deepEqual(JSON.parse(kept.stdout).map((p) => p.word).sort(), [...atBackup, 'LATER ONE', 'LATER TWO'].sort());
    } finally {
      rmSync(keptDir, { recursive: true, force: true });
    }
    assert.deepEqual(await readyz(host.url), { status: 200, text: 'ready' });
    const backupAgain = await host.cli('phrases', 'backup', backup);
    assert.notEqual(backupAgain.code, 0, 'a backup never writes over a file');
    assert.match(backupAgain.stderr, /exists; a backup never writes over a file/);
  } finally {
    await host.stop();
  }
});

test('restore onto a running host whose store is damaged inside its pages: moved aside whole, the backup read afresh', async () => {
  const host = await hostWithPhrases(2);
  try {
    const backup = join(host.dataDir, 'snap.sqlite3');
    assert.equal((await host.cli('phrases', 'backup', backup)).code, 0);
    const atBackup = await words(host.url);
    const path = join(host.dataDir, STORE);
    // Every page but the first overwritten in place: the header and schema still read.
    sqlite(path, 'PRAGMA wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(path);
    for (let page = 4096; page < bytes.length; page += 4096) bytes.fill(0x5a, page + 8, page + 4096);
    writeFileSync(path, bytes);
    const damaged = fingerprint(host.dataDir)[STORE];
    const restored = await host.cli('phrases', 'restore', '--online', backup);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored 8 phrases .* as a new file/);
    const aside = /kept at (.*)$/m.exec(restored.stdout)[1];
    const kept = readFileSync(aside);
    assert.equal(`${kept.length}:${createHash('sha256').update(kept).digest('hex')}`, damaged, 'the damaged file kept as it was');
    await until('the host showing the backup', async () => (await words(host.url)).join() === atBackup.join());
    const added = await host.cli('phrases', 'add', 'after restore', '--name', 'Op');
    assert.equal(added.code, 0, added.stderr);
  } finally {
    await host.stop();
  }
});

test('restore refuses a file that is not a sound store, and changes nothing', async () => {
  const host = await hostWithPhrases(1);
  try {
    const bad = join(host.dataDir, 'bad.sqlite3');
    writeFileSync(bad, Buffer.alloc(8192, 7));
    const before = fingerprint(host.dataDir);
    const result = await host.cli('phrases', 'restore', '--online', bad);
    assert.notEqual(result.code, 0);
    assert.ok(result.stderr.includes(bad), result.stderr);
    assert.match(result.stderr, /is not an SQLite database/);
    assert.deepEqual(fingerprint(host.dataDir), before);
    assert.deepEqual(readdirSync(host.dataDir).filter((n) => n.startsWith('.')), [], 'no temporary file left');
  } finally {
    await host.stop();
  }
});

/** A tmpfs of `size` at a new folder, or null where mounting is not allowed. */
function smallDisk(size) {
  if (!isRoot) return null;
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return { dir, close: () => { execFileSync('umount', [dir]); rmSync(dir, { recursive: true, force: true }); } };
}

/** A store made in a `data` folder on a small disk (see `smallDisk`), with `words` added. */
async function storeOnSmallDisk(size, words) {
  const disk = smallDisk(size);
  if (!disk) return null;
  const data = join(disk.dir, 'data');
  try {
    mkdirSync(data);
    assert.equal((await runCli(['phrases', 'init', '--data-dir', data])).code, 0);
    for (const word of words) assert.equal((await runCli(['phrases', 'add', word, '--name', 'Op', '--data-dir', data])).code, 0);
  } catch (error) {
    disk.close();
    throw error;
  }
  return { disk, data };
}

function fill(dir) {
  const filler = join(dir, 'filler');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeFileSync(filler, chunk, { flag: 'a' });
  } catch (error) {
    if (error.code !== 'ENOSPC') throw error;
  }
  return filler;
}

test('a full disk during a write: refused with the reason, nothing lost, writes again once there is room', { skip: !isRoot && 'needs root to mount a small tmpfs' }, async (t) => {
  const small = await storeOnSmallDisk('2m', []);
  if (!small) return t.skip('mounting a tmpfs is not allowed here');
  const { disk, data } = small;
  let host;
  try {
    host = await startHost({ dataDir: data });
    for (let i = 0; i < 5; i++) assert.equal((await runCli(['phrases', 'add', `on a small disk ${i}`, '--name', 'Op', '--data-dir', data])).code, 0);
    await until('five on the host', async () => (await allPhrases(host.url)).length === 5);
    const filler = fill(disk.dir);
    let refused;
    for (let i = 0; i < 200 && !refused; i++) {
      const result = await runCli(['phrases', 'add', `no room ${i} ${'x'.repeat(8)}`, '--name', 'n'.repeat(40), '--data-dir', data]);
      if (result.code !== 0) refused = result;
    }
    assert.ok(refused, 'some write met the full disk');
    assert.match(refused.stderr, /the disk is full, so nothing was written/);
    const listed = await runCli(['phrases', 'list', '--json', '--data-dir', data]);
    assert.equal(listed.code, 0, listed.stderr);
    const stored = JSON.parse(listed.stdout).map((p) => p.word);
    for (let i = 0; i < 5; i++) assert.ok(stored.includes(`ON A SMALL DISK ${i}`));
    // A removal on the full disk says what became of it: removed, or refused and still there.
    const first = JSON.parse(listed.stdout).find((p) => p.word === 'ON A SMALL DISK 0');
    const removal = await runCli(['phrases', 'remove', first.id, '--data-dir', data]);
    const after = JSON.parse((await runCli(['phrases', 'list', '--json', '--data-dir', data])).stdout).map((p) => p.word);
    if (removal.code === 0) {
      assert.ok(!after.includes('ON A SMALL DISK 0'), `said removed, yet still there: ${removal.stdout}`);
      stored.splice(stored.indexOf('ON A SMALL DISK 0'), 1);
    } else {
      assert.match(removal.stderr, /the disk is full, so nothing was written/);
      assert.ok(after.includes('ON A SMALL DISK 0'));
    }
    rmSync(filler);
    assert.equal((await runCli(['phrases', 'add', 'room again', '--name', 'Op', '--data-dir', data])).code, 0);
    await until('the host follows again', async () => (await words(host.url)).includes('ROOM AGAIN'));
    assert.deepEqual(await words(host.url), [...stored, 'ROOM AGAIN'].sort());
  } finally {
    await host?.stop();
    disk.close();
  }
});

test('a store on a read-only file system is said to be there, with the remedy a mount needs, and serves once it is writable', { skip: !isRoot && 'needs root to mount a tmpfs' }, async (t) => {
  const small = await storeOnSmallDisk('2m', ['kept 0']);
  if (!small) return t.skip('mounting a tmpfs is not allowed here');
  const { disk, data } = small;
  let host;
  try {
    execFileSync('mount', ['-o', 'remount,ro', disk.dir]);
    for (const args of [['serve', '--port', '0'], ['phrases', 'add', 'one more', '--name', 'Op']]) {
      const result = await runCli([...args, '--data-dir', data]);
      assert.notEqual(result.code, 0, args.join(' '));
      assert.match(result.stderr, /read-only file system/, args.join(' '));
      assert.match(result.stderr, /Mount the data folder's file system read-write/, args.join(' '));
      assert.doesNotMatch(result.stderr, /chown/, args.join(' '));
    }
    execFileSync('mount', ['-o', 'remount,rw', disk.dir]);
    host = await startHost({ dataDir: data });
    assert.deepEqual(await words(host.url), ['KEPT 0']);
  } finally {
    await host?.stop();
    disk.close();
  }
});

test('no store is made on a full disk: the first start says so and makes nothing, and the next, with room, makes the store', { skip: !isRoot && 'needs root to mount a small tmpfs' }, async (t) => {
  const disk = smallDisk('1m');
  if (!disk) return t.skip('mounting a tmpfs is not allowed here');
  const data = join(disk.dir, 'data');
  let host;
  try {
    mkdirSync(data);
    const filler = fill(disk.dir);
    for (const args of [['serve', '--port', '0'], ['phrases', 'init']]) {
      const result = await runCli([...args, '--data-dir', data]);
      assert.notEqual(result.code, 0, args.join(' '));
      assert.match(result.stderr, /the disk that holds it is full.*No store was made/, args.join(' '));
      assert.deepEqual(readdirSync(data), [], `${args.join(' ')}: nothing left in the data folder`);
    }
    rmSync(filler);
    host = await startHost({ dataDir: data });
    assert.match(host.log(), /created the embedded store/);
  } finally {
    await host?.stop();
    disk.close();
  }
});

test('a store on a disk that filled while no host ran is said to be on a full disk, not damaged, and serves once there is room', { skip: !isRoot && 'needs root to mount a small tmpfs' }, async (t) => {
  const small = await storeOnSmallDisk('2m', ['kept 0', 'kept 1', 'kept 2']);
  if (!small) return t.skip('mounting a tmpfs is not allowed here');
  const { disk, data } = small;
  let host;
  try {
    const filler = fill(disk.dir);
    // What an operator runs when a restarted host will not start: each names the disk.
    for (const args of [['serve', '--port', '0'], ['phrases', 'list'], ['phrases', 'add', 'one more', '--name', 'Op'], ['config', 'check']]) {
      const result = await runCli([...args, '--data-dir', data]);
      assert.notEqual(result.code, 0, `${args.join(' ')}: ${result.stdout}`);
      assert.match(result.stderr, /the disk that holds it is full/, args.join(' '));
      assert.doesNotMatch(result.stderr, /is damaged|phrases init/, args.join(' '));
    }
    rmSync(filler);
    host = await startHost({ dataDir: data });
    assert.deepEqual(await words(host.url), ['KEPT 0', 'KEPT 1', 'KEPT 2']);
  } finally {
    await host?.stop();
    disk.close();
  }
});

test('a full disk during a backup: refused with the reason, no partial file left', { skip: !isRoot && 'needs root to mount a small tmpfs' }, async (t) => {
  const disk = smallDisk('64k');
  if (!disk) return t.skip('mounting a tmpfs is not allowed here');
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-big-'));
  try {
    assert.equal((await runCli(['phrases', 'init', '--data-dir', dir])).code, 0);
    const file = join(dir, 'many.json');
    writeFileSync(file, JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ word: `PHRASE ${i}`, name: 'Bulk' }))));
    assert.equal((await runCli(['phrases', 'import', file, '--data-dir', dir])).code, 0);
    const target = join(disk.dir, 'backup.sqlite3');
    const result = await runCli(['phrases', 'backup', target, '--data-dir', dir]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /the disk is full/);
    assert.deepEqual(readdirSync(disk.dir), [], 'neither the backup nor its temporary file');
    // An export likewise: nothing cut short is left under the name, so it can be run again.
    const exported = join(disk.dir, 'phrases.json');
    const refused = await runCli(['phrases', 'export', exported, '--data-dir', dir]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /cannot write .*phrases\.json \(nothing is left under that name\).*No space left on device/);
    assert.deepEqual(readdirSync(disk.dir), [], 'no part of the export');
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

