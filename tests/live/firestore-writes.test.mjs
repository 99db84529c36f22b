// Writes through the CLI against a server that speaks the real Firestore gRPC protocol:
// uniqueness under concurrent adds (guard documents), nothing lost, imports in guarded
// commits. A host of its own: the emulator re-sends the whole collection after every
// write, so these many writes would slow the listener tests down.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFirestoreHost } from '../support/emulator.mjs';
import { connectLive } from '../support/live-client.mjs';
import { allPhrases } from '../support/host.mjs';
import { poll } from '../support/poll.mjs';

let emulator;
let host;

before(async () => {
  ({ emulator, host } = await startFirestoreHost({
    a1: { word: 'SEE YOU LATER', name: 'Rex' },
    b2: { word: 'TOO BIG TO FAIL', name: 'Bronto' },
  }));
});

after(async () => {
  await host?.stop();
  await emulator?.stop();
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

test('10 processes minting again a phrase deleted by another tool (its guard left behind): exactly one wins; three rounds', async () => {
  for (let round = 0; round < 3; round++) {
    const word = `phoenix ${round}`;
    const added = await host.cli('phrases', 'add', word, '--name', 'First');
    assert.equal(added.code, 0, added.stderr);
    await emulator.remove(/added (\S+)/.exec(added.stdout)[1]);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => host.cli('phrases', 'add', word, '--name', `racer ${i}`)),
    );
    const winners = results.filter((r) => r.code === 0);
    assert.equal(winners.length, 1, `round ${round}:\n${results.map((r) => r.stdout + r.stderr).join('\n')}`);
    for (const loser of results.filter((r) => r.code !== 0)) assert.match(loser.stderr, /already taken/);
    const listed = JSON.parse((await host.cli('phrases', 'list', '--json')).stdout);
    assert.equal(listed.filter((p) => p.word === word.toUpperCase()).length, 1, `round ${round}`);
  }
});

test('a phrase another tool stored as typed (not upper-cased, NFD, spaced) is taken for the CLI as it is on the site', async () => {
  await emulator.set('typed1', { word: 'hello world', name: 'Other tool' });
  await emulator.set('typed2', { word: 'CAFE\u0301', name: 'Other tool' });
  await emulator.set('typed3', { word: 'SPACED   OUT', name: 'Other tool' });
  for (const word of ['HELLO WORLD', 'CAF\u00c9', 'spaced out']) {
    const result = await host.cli('phrases', 'add', word, '--name', 'Second');
    assert.notEqual(result.code, 0, `${word} minted again: ${result.stdout}`);
    assert.match(result.stderr, /already taken.*Other tool/, word);
  }
  // A document the site skips as malformed holds nothing: the word is free there and here.
  await emulator.set('broken', { word: 'GHOST' });
  const ghost = await host.cli('phrases', 'add', 'ghost', '--name', 'Real');
  assert.equal(ghost.code, 0, ghost.stderr);
});

test('import into Firestore adds every valid entry through guarded commits', async () => {
  const file = join(host.dataDir, 'import.json');
  // More than one commit's worth (200 phrases and their guards per commit).
  const entries = Array.from({ length: 250 }, (_, i) => ({ word: `BULK ${i}`, name: 'Importer' }));
  entries.push({ word: 'TOO BIG TO FAIL', name: 'Dup' }, { word: 'BAD\u200B', name: 'Zed' });
  writeFileSync(file, JSON.stringify(entries));
  const result = await host.cli('phrases', 'import', file);
  assert.match(result.stdout, /252 entries: added 250, skipped 1 as already taken, rejected 1/, result.stderr);
  const again = await host.cli('phrases', 'add', 'bulk 7', '--name', 'Late');
  assert.match(again.stderr, /already taken/, 'the imported phrases are guarded');
  // In the file's order, though a commit's phrases share one time: `list` oldest first,
  // the site newest first.
  const bulk = entries.slice(0, 250).map((e) => e.word);
  const listed = JSON.parse((await host.cli('phrases', 'list', '--json')).stdout).map((p) => p.word).filter((w) => w.startsWith('BULK '));
  assert.deepEqual(listed, bulk, 'phrases list, oldest first');
  // The emulator re-sends the whole collection on every write: its listener may lag, fall
  // silent past the probe and be opened again before the host has all of it.
  await poll(async () => (await allPhrases(host.url)).filter((p) => p.word.startsWith('BULK ')).length, (n) => n === 250, 60_000, 'the import on the site');
  const shown = (await allPhrases(host.url)).map((p) => p.word).filter((w) => w.startsWith('BULK '));
  assert.deepEqual(shown, bulk.slice().reverse(), 'the site, newest first');
  // Left in place: removing them one by one would make the emulator re-send the whole
  // collection hundreds of times; the restart below starts it empty.
});

/** The phrases in Firestore, as `phrases list` reads them. */
async function stored() {
  const listed = await host.cli('phrases', 'list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout);
}

test('a phrase added reads the collection once, as Firestore bills it, and is still told which phrase it reads like', async () => {
  const documents = (await stored()).length;
  assert.ok(documents > 250, `${documents} phrases: the import above left them`);
  const before = await emulator.documentsRead();
  // A letter O where the import's phrase has a zero.
  const result = await host.cli('phrases', 'add', 'bulk o', '--name', 'Lookalike');
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /"BULK O" reads like "BULK 0" by "Importer"/);
  const read = (await emulator.documentsRead()) - before;
  // The collection, a query for the word and the host's probes, not the collection twice.
  assert.ok(read <= documents + 10, `${read} documents read for one add to ${documents}`);
});

test('an import whose commit meets a guard left behind settles its phrases from the one read, and mints them all', async () => {
  const added = await host.cli('phrases', 'add', 'left behind', '--name', 'First');
  assert.equal(added.code, 0, added.stderr);
  await emulator.remove(/added (\S+)/.exec(added.stdout)[1]);
  const documents = (await stored()).length;
  const file = join(host.dataDir, 'guarded.json');
  // First: the emulator applies a commit's writes up to the one that fails (Firestore
  // applies none), so only a commit that fails at its first write is one here.
  const entries = [{ word: 'LEFT BEHIND', name: 'Second' }];
  entries.push(...Array.from({ length: 40 }, (_, i) => ({ word: `SETTLED ${i}`, name: 'Importer' })));
  writeFileSync(file, JSON.stringify(entries));
  const before = await emulator.documentsRead();
  const result = await host.cli('phrases', 'import', file);
  assert.match(result.stdout, /41 entries: added 41, skipped 0 as already taken, rejected 0/, result.stderr);
  const read = (await emulator.documentsRead()) - before;
  // One read of the collection for the import, one more for the phrase whose guard was
  // left behind; settled one by one, each a read of its own, it was 41 reads of it.
  assert.ok(read <= 3 * documents + 50, `${read} documents read for an import of 41 into ${documents}`);
  const words = (await stored()).map((p) => p.word);
  assert.deepEqual(entries.map((e) => e.word).filter((w) => !words.includes(w)), [], 'not minted');
});
