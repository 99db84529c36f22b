// The embedded store behaves like Firestore for a fresh clone: writes show up live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost } from '../support/host.mjs';
import { connectLive } from '../support/live-client.mjs';

let host;

before(async () => {
  host = await startHost({ phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }] });
});

after(async () => {
  await host?.stop();
});

test('a CLI write reaches a connected client', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size === 1, 2000, 'the snapshot');
  const added = await host.cli('phrases', 'add', 'goodbye', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await client.until((c) => c.words().includes('GOODBYE'), 1000, 'the CLI write');
  client.close();
});

test('a client that reconnects with its version gets only what it missed', async () => {
  const first = connectLive(host.url);
  await first.until((c) => c.phrases.size >= 1, 2000, 'the snapshot');
  const version = first.version;
  first.close();
  await host.cli('phrases', 'add', 'missed me', '--name', 'Tess');
  await new Promise((r) => setTimeout(r, 300));
  const again = connectLive(host.url, version);
  await again.until((c) => c.words().includes('MISSED ME'), 1000, 'the catch-up');
  assert.equal(again.messages[0].type, 'changes');
  assert.equal(again.messages[0].from, version);
  again.close();
});

test('a corrupt file is reported clearly and the last good list keeps serving', async () => {
  const before = await (await fetch(`${host.url}/api/phrases`)).json();
  writeFileSync(join(host.dataDir, 'phrases.json'), '[{"id": "x", "word": ');
  await new Promise((r) => setTimeout(r, 500));
  const after = await (await fetch(`${host.url}/api/phrases`)).json();
  assert.deepEqual(after.phrases, before.phrases);
  assert.match(host.log(), /phrases\.json: not a JSON array/);
  assert.match(host.log(), /still serving the last good list/);
});
