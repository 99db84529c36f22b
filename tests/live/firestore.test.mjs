// One Firestore listener in the host, fanned out over WebSockets, against a server that
// speaks the real Firestore gRPC protocol.
import { test, before, after } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { startHost } from '../support/host.mjs';
import { startEmulator } from '../support/emulator.mjs';
import { connectLive } from '../support/live-client.mjs';

let emulator;
let host;

before(async () => {
  emulator = await startEmulator();
  await emulator.set('a1', { word: 'SEE YOU LATER', name: 'Rex' });
  await emulator.set('b2', { word: 'TOO BIG TO FAIL', name: 'Bronto' });
  await emulator.set('bad', { word: 42, name: 'Broken' });
  host = await startHost({
    args: ['--firestore-project', 'test'],
    env: { FIRESTORE_EMULATOR_HOST: emulator.host },
  });
});

after(async () => {
  await host?.stop();
  await emulator?.stop();
});

async function apiWords() {
  const response = await fetch(`${host.url}/api/phrases`);
  const body = await response.json();
  return body.phrases.map((p) => p.word).sort();
}

async function eventually(read, expected, ms) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(last, expected);
}

test('the initial snapshot has every well-formed document and skips the malformed one', async () => {
  await eventually(apiWords, ['SEE YOU LATER', 'TOO BIG TO FAIL'], 10_000);
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size === 2, 2000, 'the snapshot');
  assert.equal(client.messages[0].type, 'snapshot');
  client.close();
  assert.match(host.log(), /skipped a malformed Firestore document/);
});

test('an insert, an update and a delete each reach a connected client within a second', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size === 2, 2000, 'the snapshot');

  const added = await host.cli('phrases', 'add', 'rawr', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await client.until((c) => c.words().includes('RAWR'), 1000, 'the insert');
  const id = /added (\S+)/.exec(added.stdout)[1];

  await emulator.set('a1', { word: 'SEE YOU SOON', name: 'Rex' });
  await client.until((c) => c.phrases.get('a1')?.word === 'SEE YOU SOON', 1000, 'the update');

  const removed = await host.cli('phrases', 'remove', id);
  assert.equal(removed.code, 0, removed.stderr);
  await client.until((c) => !c.words().includes('RAWR'), 1000, 'the delete');
  assert.ok(client.messages.slice(1).every((m) => m.type === 'changes'), 'deltas, not snapshots');
  client.close();
});

test('a taken phrase is refused by the CLI with a clear message', async () => {
  const again = await host.cli('phrases', 'add', 'too big to fail', '--name', 'Copycat');
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /already taken/);
});

test('10 processes adding one phrase at once: exactly one commit wins, the others are told it is taken', async () => {
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => host.cli('phrases', 'add', 'same word', '--name', `racer ${i}`)),
  );
  const winners = results.filter((r) => r.code === 0);
  assert.equal(winners.length, 1, results.map((r) => r.stdout + r.stderr).join('\n'));
  for (const loser of results.filter((r) => r.code !== 0)) assert.match(loser.stderr, /already taken/);
  const listed = JSON.parse((await host.cli('phrases', 'list', '--json')).stdout);
  assert.equal(listed.filter((p) => p.word === 'SAME WORD').length, 1);
});

test('30 processes adding at once, three rounds: every acknowledged phrase is in Firestore and on a live client', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 2, 2000, 'the snapshot');
  const acknowledged = [];
  for (let round = 0; round < 3; round++) {
    const words = Array.from({ length: 30 }, (_, i) => `FS ${round} NO ${i}`);
    const results = await Promise.all(words.map((word) => host.cli('phrases', 'add', word, '--name', 'w')));
    results.forEach((r, i) => {
      assert.equal(r.code, 0, `${words[i]}: ${r.stderr}`);
      acknowledged.push(words[i]);
    });
  }
  const listed = JSON.parse((await host.cli('phrases', 'list', '--json')).stdout).map((p) => p.word);
  assert.deepEqual(acknowledged.filter((w) => !listed.includes(w)), [], 'lost from Firestore');
  await client.until((c) => acknowledged.every((w) => c.words().includes(w)), 10_000, 'every add live');
  client.close();
  for (const phrase of JSON.parse((await host.cli('phrases', 'list', '--json')).stdout)) {
    if (phrase.word.startsWith('FS ')) await host.cli('phrases', 'remove', phrase.id);
  }
});

test('a phrase deleted by another tool (its guard left behind) can be minted again', async () => {
  const added = await host.cli('phrases', 'add', 'phoenix', '--name', 'First');
  assert.equal(added.code, 0, added.stderr);
  await emulator.remove(/added (\S+)/.exec(added.stdout)[1]);
  const again = await host.cli('phrases', 'add', 'phoenix', '--name', 'Second');
  assert.equal(again.code, 0, again.stderr);
  const listed = JSON.parse((await host.cli('phrases', 'list', '--json')).stdout);
  assert.deepEqual(listed.filter((p) => p.word === 'PHOENIX').map((p) => p.name), ['Second']);
});

test('import into Firestore adds every valid entry through guarded commits', async () => {
  const file = join(host.dataDir, 'import.json');
  const entries = Array.from({ length: 450 }, (_, i) => ({ word: `BULK ${i}`, name: 'Importer' }));
  entries.push({ word: 'TOO BIG TO FAIL', name: 'Dup' }, { word: 'BAD\u200B', name: 'Zed' });
  writeFileSync(file, JSON.stringify(entries));
  const result = await host.cli('phrases', 'import', file);
  assert.match(result.stdout, /452 entries: added 450, skipped 1 as already taken, rejected 1/, result.stderr);
  const again = await host.cli('phrases', 'add', 'bulk 7', '--name', 'Late');
  assert.match(again.stderr, /already taken/, 'the imported phrases are guarded');
  for (const phrase of JSON.parse((await host.cli('phrases', 'list', '--json')).stdout)) {
    if (phrase.word.startsWith('BULK ')) await host.cli('phrases', 'remove', phrase.id);
  }
});

test('a document that breaks the content rules is never shown, and is reported once, not on every write', async () => {
  await emulator.set('zw', { word: 'HEL\u200BLO', name: 'Zero Width' });
  await emulator.set('ctl', { word: 'FINE', name: '\u001b[2J' });
  for (let i = 0; i < 5; i++) await emulator.set(`other${i}`, { word: `OTHER ${i}`, name: 'n' });
  await eventually(async () => (await apiWords()).filter((w) => w.startsWith('OTHER')).length, 5, 5000);
  const words = await apiWords();
  assert.ok(!words.some((w) => w.includes('HEL')) && !words.includes('FINE'), words.join());
  const reports = host.log().split('\n').filter((line) => /words\/(zw|ctl)\b/.test(line));
  assert.equal(reports.length, 2, reports.join('\n'));
  assert.ok(!host.log().includes('\u001b[2J'), 'no raw escape in the log');
  for (let i = 0; i < 5; i++) await emulator.remove(`other${i}`);
  await emulator.remove('zw');
  await emulator.remove('ctl');
});

test('the emulator killed and restarted with other data: the host keeps serving, then converges', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 2, 2000, 'the snapshot');
  const before = await apiWords();
  const port = emulator.port;
  await emulator.stop();
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(await apiWords(), before, 'the last list keeps serving');
  const page = await fetch(`${host.url}/words`);
  assert.equal(page.status, 200);

  emulator = await startEmulator(port);
  await emulator.set('z9', { word: 'AFTER THE METEOR', name: 'Phoenix' });
  await client.until((c) => c.words().join() === 'AFTER THE METEOR', 15_000, 'convergence');
  await eventually(apiWords, ['AFTER THE METEOR'], 2000);
  client.close();
});
