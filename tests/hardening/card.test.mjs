// Each phrase's card image from the real binary: every hostile phrase of the corpus
// (and a 20-character one with a 40-character name, and other scripts) gets a 1200×630
// PNG with a validator; the validator gets 304; a second request is a cache hit; an
// unknown id gets 404, a removed one 410, as their pages do.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHost } from '../support/host.mjs';
import { metric } from './metrics.mjs';
import { poll } from '../support/poll.mjs';

const corpus = JSON.parse(readFileSync(new URL('./corpus.json', import.meta.url), 'utf8'));
const expand = (value) => (typeof value === 'object' && value !== null && 'repeat' in value ? value.repeat.repeat(value.times) : value);
const phrases = [
  ...corpus.phrases.filter((p) => !p.refused).map(({ id, word, name }) => ({ id: expand(id), word: expand(word), name: expand(name) })),
  { id: 'widest', word: 'W'.repeat(20), name: 'W'.repeat(40) },
  { id: 'cjk emoji', word: '再见 🦖☄️', name: 'Дмитрий' },
];

let host;

before(async () => {
  host = await startHost({ phrases });
});

after(async () => {
  await host?.stop();
});

const cardUrl = (id, product = 'words') => `${host.url}/${product}/${encodeURIComponent(id)}/card.png`;

/** Width and height from a PNG's IHDR, after checking the signature. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test('every phrase, hostile ones too, has a 1200×630 PNG card with a validator', async () => {
  for (const { id } of phrases) {
    const response = await fetch(cardUrl(id));
    assert.equal(response.status, 200, id);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(response.headers.get('etag'), /^"[0-9a-f]{24}"$/);
    assert.deepEqual(pngSize(Buffer.from(await response.arrayBuffer())), [1200, 630], id);
  }
});

test('the validator gets 304, a second request is a cache hit, and the capitalised path is the same card', async () => {
  const first = await fetch(cardUrl('widest'));
  const etag = first.headers.get('etag');
  const body = Buffer.from(await first.arrayBuffer());
  const renders = await metric(host.url, 'lastwords_card_renders_total');
  const hits = await metric(host.url, 'lastwords_card_cache_hits_total');

  const again = await fetch(cardUrl('widest', 'Words'));
  assert.equal(again.status, 200);
  assert.deepEqual(Buffer.from(await again.arrayBuffer()), body);
  assert.equal(await metric(host.url, 'lastwords_card_renders_total'), renders);
  assert.equal(await metric(host.url, 'lastwords_card_cache_hits_total'), hits + 1);

  const notModified = await fetch(cardUrl('widest'), { headers: { 'If-None-Match': etag } });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.headers.get('etag'), etag);
  assert.equal((await notModified.arrayBuffer()).byteLength, 0);
});

test('a removed phrase\'s card answers 410, as its page does, and draws nothing', async () => {
  const id = 'cjk emoji';
  assert.equal((await fetch(cardUrl(id))).status, 200);
  const removed = await host.cli('phrases', 'remove', id);
  assert.equal(removed.code, 0, removed.stderr);
  await poll(async () => (await fetch(`${host.url}/words/${encodeURIComponent(id)}`)).status, (status) => status === 410, 10_000, 'the page gone');
  const renders = await metric(host.url, 'lastwords_card_renders_total');
  const response = await fetch(cardUrl(id));
  assert.equal(response.status, 410);
  assert.match(await response.text(), /removed/);
  assert.equal(await metric(host.url, 'lastwords_card_renders_total'), renders);
});

test('an unknown id gets 404 and draws nothing', async () => {
  const renders = await metric(host.url, 'lastwords_card_renders_total');
  for (const id of ['no such id', '<script>', 'WIDEST']) {
    const response = await fetch(cardUrl(id));
    assert.equal(response.status, 404, id);
    await response.arrayBuffer();
  }
  assert.equal(await metric(host.url, 'lastwords_card_renders_total'), renders);
});
