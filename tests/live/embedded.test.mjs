// The embedded store as operators and adversaries meet it: real CLI processes writing at
// once, a live host following them, a store removed or replaced under it.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allPhrases, cpuTicks, runCli, startHost } from '../support/host.mjs';
import { connectLive } from '../support/live-client.mjs';
import { eventually, poll, sleep } from '../support/poll.mjs';

let host;

before(async () => {
  host = await startHost({ phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }] });
});

after(async () => {
  await host?.stop();
});

async function apiWords(url = host.url) {
  return (await allPhrases(url)).map((p) => p.word);
}

/** How often each of `pid`'s threads has gone to sleep and been woken, by thread id and name. */
function wakeups(pid) {
  const counts = new Map();
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${thread}/comm`, 'utf8').trim();
      const status = readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8');
      counts.set(`${name} (${thread})`, Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)[1]));
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return counts;
}

async function storedWords(cli = host.cli) {
  const listed = await cli('phrases', 'list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout).map((p) => p.word);
}

test('a phrases.json from an earlier version is imported on first start and renamed, not deleted', async () => {
  assert.deepEqual(await apiWords(), ['HELLO']);
  assert.ok(existsSync(join(host.dataDir, 'phrases.sqlite3')));
  assert.ok(!existsSync(join(host.dataDir, 'phrases.json')));
  const kept = JSON.parse(readFileSync(join(host.dataDir, 'phrases.json.imported'), 'utf8'));
  assert.deepEqual(kept, [{ id: 'a1', word: 'HELLO', name: 'Rex' }]);
  // One line tells an operator what started: which build, which store, how much of it.
  const serving = host.log().split('\n').find((line) => line.includes(' serving url='));
  assert.ok(serving, host.log());
  for (const field of ['version="', 'engine="quickjs"', 'env="staging"', `store="embedded ${host.dataDir}"`, 'phrases=1']) {
    assert.ok(serving.includes(field), `${field} in: ${serving}`);
  }
});

test('a CLI write reaches a connected client', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 1, 2000, 'the snapshot');
  const added = await host.cli('phrases', 'add', 'goodbye', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await client.until((c) => c.words().includes('GOODBYE'), 1000, 'the CLI write');
  client.close();
});

test("another program reading the store (an operator's sqlite3) does not leave the host deaf to later writes", async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 1, 2000, 'the snapshot');
  // The sqlite3 shell reads, closes and, taking itself for the store's last reader,
  // checkpoints and deletes the log, unless the host's connection still holds its lock.
  const read = spawnSync('sqlite3', [join(host.dataDir, 'phrases.sqlite3'), 'SELECT count(*) FROM phrases'], { encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  assert.ok(Number(read.stdout) >= 1, read.stdout);
  assert.ok(existsSync(join(host.dataDir, 'phrases.sqlite3-wal')), "the host's log is still there");
  const added = await host.cli('phrases', 'add', 'still listening', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await client.until((c) => c.words().includes('STILL LISTENING'), 3000, 'the write after the read');
  assert.ok((await apiWords()).includes('STILL LISTENING'));
  client.close();
});

test('a client that reconnects with its version gets only what it missed', async () => {
  const first = connectLive(host.url);
  await first.until((c) => c.phrases.size >= 1, 2000, 'the snapshot');
  const version = first.version;
  first.close();
  await host.cli('phrases', 'add', 'missed me', '--name', 'Tess');
  await poll(apiWords, (words) => words.includes('MISSED ME'), 5000, 'the host serving the phrase added while the client was away');
  const again = connectLive(host.url, version);
  await again.until((c) => c.words().includes('MISSED ME'), 1000, 'the catch-up');
  assert.equal(again.messages[0].type, 'changes');
  assert.equal(again.messages[0].from, version);
  again.close();
});

test('30 CLI processes adding at once, three rounds: every acknowledged phrase is stored, served and live', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 1, 2000, 'the snapshot');
  const lines = host.log().split('\n').length;
  const acknowledged = [];
  for (let round = 0; round < 3; round++) {
    const words = Array.from({ length: 30 }, (_, i) => `ROUND ${round} NO ${i}`);
    const results = await Promise.all(words.map((word) => host.cli('phrases', 'add', word, '--name', `w${round}`)));
    results.forEach((result, i) => {
      assert.equal(result.code, 0, `${words[i]}: ${result.stderr}`);
      assert.match(result.stdout, /^added /);
      acknowledged.push(words[i]);
    });
  }
  const stored = await storedWords();
  const missing = acknowledged.filter((word) => !stored.includes(word));
  assert.deepEqual(missing, [], 'lost from the store');
  await client.until((c) => acknowledged.every((w) => c.words().includes(w)), 5000, 'every add on the live client');
  const served = await apiWords();
  assert.deepEqual(acknowledged.filter((word) => !served.includes(word)), [], 'missing from the API');
  // A busy community is not a busy log: a line per change would be a line per mint, all
  // day (Firestore's changes are not logged either; RUST_LOG=debug shows both).
  assert.equal(host.log().split('\n').length, lines, `log lines for 90 additions:\n${host.log().split('\n').slice(lines - 1, lines + 9).join('\n')}`);
  client.close();
});

test('the CLI quotes a phrase in Bengali or Arabic as it is written, with only what a terminal could act on escaped', async () => {
  const word = 'শুভ বিদায়';
  const name = 'فاطمة';
  const added = await host.cli('phrases', 'add', word, '--name', name);
  assert.equal(added.code, 0, added.stderr);
  // The vowel signs and the nukta are letters to a reader, not \u{9c1} escapes.
  const id = /^added (\S+) "শুভ বিদায়" by "فاطمة"$/m.exec(added.stdout)?.[1];
  assert.ok(id, added.stdout);
  const again = await host.cli('phrases', 'add', word, '--name', 'Rex');
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /the phrase "শুভ বিদায়" is already taken \(by "فاطمة"\)/);
  const removed = await host.cli('phrases', 'remove', id);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, new RegExp(`^removed ${id} "শুভ বিদায়" by "فاطمة"$`, 'm'));
  const missing = await host.cli('phrases', 'remove', 'no\u202esuch');
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /no phrase has the id "no\\u\{202e\}such"/);
});

test('10 processes adding the same phrase at once: exactly one wins, the others say it is taken', async () => {
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => host.cli('phrases', 'add', 'only once', '--name', `racer ${i}`)),
  );
  const winners = results.filter((r) => r.code === 0);
  assert.equal(winners.length, 1, results.map((r) => r.stdout + r.stderr).join('\n'));
  for (const loser of results.filter((r) => r.code !== 0)) assert.match(loser.stderr, /already taken/);
  const stored = await storedWords();
  assert.equal(stored.filter((w) => w === 'ONLY ONCE').length, 1);
});

test('after an edit the host is quiet: no CPU, no log lines', async () => {
  await host.cli('phrases', 'add', 'quiet please', '--name', 'Tess');
  await poll(apiWords, (words) => words.includes('QUIET PLEASE'), 5000, 'the host serving the edit');
  writeFileSync(join(host.dataDir, 'unrelated.txt'), 'x');
  // `touch` on every file of the store: a change of times is not a change of phrases.
  const now = new Date();
  for (const name of readdirSync(host.dataDir)) utimesSync(join(host.dataDir, name), now, now);
  // Let the re-checks after the last write (3 s at most) run out.
  await sleep(3500);
  // The budget is what 50 list requests cost on this machine (a tick more for rounding):
  // a host that polls or spins while idle spends far more, on a slow machine or a fast one.
  const requestsFrom = cpuTicks(host.pid);
  for (let i = 0; i < 50; i++) await (await fetch(`${host.url}/api/phrases?limit=200`)).arrayBuffer();
  const budget = cpuTicks(host.pid) - requestsFrom + 1;
  const ticks = cpuTicks(host.pid);
  const lines = host.log().split('\n').length;
  const woken = wakeups(host.pid);
  await sleep(4000);
  const used = cpuTicks(host.pid) - ticks;
  assert.ok(used <= budget, `the idle host used ${used * 10} ms of CPU in 4 s, more than the ${budget * 10} ms 50 list requests took`);
  // Nor does any thread wake on a timer of its own (a minute's, at most, may fall in).
  const after = wakeups(host.pid);
  const busy = [...after].filter(([thread, n]) => n > (woken.get(thread) ?? 0)).map(([thread, n]) => `${thread}: ${n - (woken.get(thread) ?? 0)}`);
  assert.ok(busy.length <= 1, `threads that woke in 4 s idle: ${busy.join(', ')}`);
  assert.equal(host.log().split('\n').length, lines, `log lines while idle:\n${host.log().split('\n').slice(lines - 1).join('\n')}`);
});

test('import adds every valid entry, reports each rejected one with its reason, and removes nothing', async () => {
  const before = await storedWords();
  const file = join(host.dataDir, 'import.json');
  writeFileSync(
    file,
    JSON.stringify([
      { word: 'imported one', name: 'Ada' },
      { word: 'hel\u200blo', name: 'Zero Width' },
      { word: 'x'.repeat(21), name: 'Long' },
      { word: 'HELLO', name: 'Again' },
      { word: 'named badly', name: 'n'.repeat(1 << 20) },
      { word: 'no name' },
      'not an object',
      { word: '  imported   two ', name: ' Bea ', extra: 'ignored' },
      { word: 'NUL\u0000', name: 'Nil' },
    ]),
  );
  const result = await host.cli('phrases', 'import', file);
  assert.equal(result.code, 1, 'rejections make the exit status non-zero');
  assert.match(result.stdout, /9 entries: added 2, skipped 1 as already taken, rejected 6/);
  assert.match(result.stdout, /#2 "hel\\u\{200b\}lo": a phrase cannot contain the character U\+200B/);
  assert.match(result.stdout, /#7: needs string fields word and name/);
  assert.match(result.stdout, /#9 "NUL\\u\{0\}": a phrase cannot contain the character U\+0000/);
  assert.match(result.stdout, /#3 .*at most 20 characters/);
  // Too big to be a name before it is even normalised (over 64 KiB as given).
  assert.match(result.stdout, /#5 .*a name can take at most 400 bytes; this one takes 1048576/);
  assert.match(result.stdout, /skipped "HELLO": already taken by "Rex"/, 'which one was taken, and by whom');
  assert.match(result.stdout, /#6: needs string fields word and name/);
  assert.match(result.stderr, /6 of 9 entries were rejected/);
  const after = await storedWords();
  assert.deepEqual(after.filter((w) => !before.includes(w)).sort(), ['IMPORTED ONE', 'IMPORTED TWO']);
  assert.ok(before.every((w) => after.includes(w)), 'nothing removed');
});

test('an import file saved with a byte-order mark (as some editors do) is read as the same JSON', async () => {
  const file = join(host.dataDir, 'bom.json');
  writeFileSync(file, `\ufeff${JSON.stringify([{ word: 'marked file', name: 'Ada' }])}`);
  const result = await host.cli('phrases', 'import', file);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /1 entries: added 1/);
  assert.ok((await storedWords()).includes('MARKED FILE'));
});

test('export writes JSON that import takes back', async () => {
  const file = join(host.dataDir, 'export.json');
  const exported = await host.cli('phrases', 'export', file);
  assert.equal(exported.code, 0, exported.stderr);
  const phrases = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(phrases.length > 1);
  // A second export to the same name is refused, as a backup's is: the first is kept.
  const again = await host.cli('phrases', 'export', file);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /exists; an export never writes over a file/);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), phrases);
  const fresh = mkdtempSync(join(tmpdir(), 'lastwords-export-'));
  try {
    assert.equal((await runCli(['phrases', 'init', '--data-dir', fresh])).code, 0);
    const imported = await runCli(['phrases', 'import', file, '--data-dir', fresh]);
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    assert.match(imported.stdout, new RegExp(`added ${phrases.length}, skipped 0`));
    const back = JSON.parse((await runCli(['phrases', 'list', '--json', '--data-dir', fresh])).stdout);
    assert.deepEqual(back.map((p) => p.word), phrases.map((p) => p.word), 'same phrases, same order');
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('hostile phrases and names are refused by the CLI with the reason, and nothing is stored', async () => {
  const before = await storedWords();
  const cases = [
    ['HEL\u200BLO', 'Zed', /U\+200B/],
    ['A\u202EB', 'Zed', /U\+202E/],
    ['\u001b[2JWIPE', 'Zed', /U\+001B/],
    ['   ', 'Zed', /at least one visible character/],
    [`A${'\u0301'.repeat(200)}`, 'Zed', /combining marks/],
    ['\uE000', 'Zed', /U\+E000/],
    // Blank-looking: shown as nothing, or as a space that is not one.
    ['\u3164', 'Zed', /U\+3164/],
    ['HELLO\u3164WORLD', 'Zed', /U\+3164/],
    ['\u2800\u2800', 'Zed', /at least one visible character/],
    ['\u0301', 'Zed', /at least one visible character/],
    ['FINE WORD', '\u3164', /a name cannot contain/],
    ['FINE WORD', '\u200B', /a name cannot contain/],
    ['FINE WORD', ' ', /a name needs at least one visible character/],
  ];
  for (const [word, name, reason] of cases) {
    const result = await host.cli('phrases', 'add', word, '--name', name);
    assert.notEqual(result.code, 0, `${JSON.stringify(word)} was accepted`);
    assert.match(result.stderr, reason, JSON.stringify(word));
  }
  assert.deepEqual(await storedWords(), before);
  for (const [word, reason] of [['HEL\u200BLO', /U\+200B/], ['\u3164', /U\+3164/], ['\u2800', /at least one visible character/]]) {
    const check = await fetch(`${host.url}/api/phrases/check?word=${encodeURIComponent(word)}`);
    assert.equal(check.status, 400, JSON.stringify(word));
    assert.match((await check.json()).error ?? '', reason);
  }
});

test('a missing store is an error naming the path and the command that creates one; the host keeps serving', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'lastwords-missing-'));
  try {
    const result = await runCli(['phrases', 'add', 'x', '--name', 'y', '--data-dir', empty]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, new RegExp(`no phrase store at ${join(empty, 'phrases.sqlite3')}`));
    assert.match(result.stderr, /lastwords phrases init/);
    assert.ok(!existsSync(join(empty, 'phrases.sqlite3')), 'the CLI made no store up');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }

  const served = await apiWords();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(host.dataDir, `phrases.sqlite3${suffix}`), { force: true });
  const add = await host.cli('phrases', 'add', 'into the void', '--name', 'Tess');
  assert.notEqual(add.code, 0);
  assert.match(add.stderr, /phrases init/);
  // Said once it has lasted a second (a file being copied in passes through such states).
  const said = /the embedded store cannot be read; still serving the last list.*the file was removed/;
  await poll(host.log, (log) => said.test(log), 5000, 'the log saying the store was removed and the last list is served');
  assert.deepEqual(await apiWords(), served, 'nothing replaced by samples, nothing lost from view');

  // A new store made in its place is followed.
  assert.equal((await host.cli('phrases', 'init')).code, 0);
  assert.equal((await host.cli('phrases', 'add', 'fresh start', '--name', 'Tess')).code, 0);
  await eventually(apiWords, ['FRESH START'], 5000, 'the host following the new store in place of the removed one');
});
