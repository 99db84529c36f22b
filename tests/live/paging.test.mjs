// Paging a long list while it changes: the API's cursors and the no-script pages of
// /words, with phrases added and removed by real CLI processes between page loads.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import zlib from 'node:zlib';
import { allPhrases, startHost } from '../support/host.mjs';
import { poll } from '../support/poll.mjs';
import { rawRequest } from '../support/raw-http.mjs';

const COUNT = 600;
let host;

before(async () => {
  const phrases = Array.from({ length: COUNT }, (_, i) => ({ id: `p${String(i).padStart(4, '0')}`, word: `PAGED ${i}`, name: `Minter ${i}` }));
  host = await startHost({ phrases });
});

after(async () => {
  await host?.stop();
});

const api = async (query) => {
  const response = await fetch(`${host.url}/api/phrases?${query}`);
  return { status: response.status, etag: response.headers.get('etag'), body: await response.json() };
};

async function cli(...args) {
  const result = await host.cli(...args);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

test('paging the API while phrases are added and removed shows each phrase that stayed exactly once, newest first', async () => {
  const start = await allPhrases(host.url);
  assert.equal(start.length, COUNT);
  assert.equal(start[0].word, `PAGED ${COUNT - 1}`, 'the last imported is the newest');
  const seen = [];
  const removed = new Set();
  let after = '';
  for (let turn = 0; ; turn++) {
    const { status, body } = await api(`limit=37${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    assert.equal(status, 200);
    seen.push(...body.phrases.map((p) => p.id));
    if (body.next === null) break;
    after = body.next;
    // Between page loads: one phrase minted (it goes on top, above every cursor), the
    // phrase the cursor names removed, and one not seen yet removed.
    await cli('phrases', 'add', `new during paging ${turn}`, '--name', 'Late');
    const cursorPhrase = body.phrases.at(-1).id;
    const ahead = start.find((p) => !seen.includes(p.id) && !removed.has(p.id));
    for (const id of [cursorPhrase, ahead?.id].filter(Boolean)) {
      await cli('phrases', 'remove', id);
      removed.add(id);
    }
  }
  assert.equal(new Set(seen).size, seen.length, 'no phrase shown twice');
  const stayed = start.filter((p) => !removed.has(p.id) || seen.includes(p.id)).map((p) => p.id);
  assert.deepEqual(seen, stayed, 'every phrase that stayed, in order, none skipped');
});

test('find pages through the phrases that contain the text, and agrees with the whole list', async () => {
  const everything = await allPhrases(host.url);
  const expected = everything.filter((p) => p.word.includes('PAGED 1')).map((p) => p.id);
  const found = [];
  let after = '';
  for (;;) {
    // Lower case and loose spaces: the text is normalised like a phrase.
    const { body } = await api(`q=${encodeURIComponent('paged  1')}&limit=50${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    found.push(...body.phrases.map((p) => p.id));
    if (body.next === null) break;
    after = body.next;
  }
  assert.deepEqual(found, expected);
  assert.ok(found.length > 100);
  const none = await api('q=NOTHING LIKE THIS');
  assert.deepEqual([none.body.phrases, none.body.next], [[], null]);
});

test('limits and cursors at the edge and just past it get a 400 that says what is wrong', async () => {
  assert.equal((await api('limit=1')).body.phrases.length, 1);
  assert.equal((await api('limit=200')).body.phrases.length, 200);
  for (const [query, message] of [
    ['limit=0', /limit is a whole number from 1 to 200/],
    ['limit=201', /limit is a whole number from 1 to 200/],
    ['limit=ten', /limit is a whole number from 1 to 200/],
    ['after=nonsense', /after: a cursor is/],
    ['before=12', /before: a cursor is/],
    ['after=1-a&before=1-b', /not both/],
    [`q=${encodeURIComponent('A\u200bB')}`, /q: .*U\+200B/],
    [`q=${'X'.repeat(401)}`, /longer than 400 bytes/],
  ]) {
    const { status, body } = await api(query);
    assert.equal(status, 400, query);
    assert.match(body.error, message, query);
  }
  // The page a visitor follows the same link to says so in a page, and leads to the list.
  for (const query of ['after=nonsense', 'before=12', 'after=1-a&before=1-b', 'after=1-a&after=2-b', 'check=a&check=b']) {
    const response = await fetch(`${host.url}/words?${query}`);
    assert.equal(response.status, 400, query);
    assert.match(response.headers.get('content-type'), /^text\/html/, query);
    const html = await response.text();
    assert.match(html, /<h1[^>]*>This link is broken<\/h1>/, query);
    assert.match(html, /<a [^>]*href="\/words">The newest Last Words<\/a>/, query);
    // In a visitor's words: what the parser said is for the API's developers.
    assert.match(html, /cut short or changed on the way/, query);
    assert.doesNotMatch(html, /cursor is|deserialize|duplicate field|`/i, query);
  }
  // A cursor past the end is an empty last page, not an error.
  const past = await api('after=0-zzzz');
  assert.deepEqual([past.status, past.body.phrases, past.body.next], [200, [], null]);
});

test('a page not changed since the client had it is a 304', async () => {
  const first = await api('limit=5');
  const again = await fetch(`${host.url}/api/phrases?limit=5`, { headers: { 'If-None-Match': first.etag } });
  assert.equal(again.status, 304);
  await cli('phrases', 'add', 'changes the etag', '--name', 'Tag');
  // The host follows the store on its own: ask until the new phrase is served.
  const read = async () => {
    const response = await fetch(`${host.url}/api/phrases?limit=5`, { headers: { 'If-None-Match': first.etag } });
    return { status: response.status, etag: response.headers.get('etag'), words: response.status === 200 ? (await response.json()).phrases.map((p) => p.word) : null };
  };
  await poll(read, (value) => value.status !== 304, 10_000, 'the first page changed by an addition answered the old ETag with the new page');
  const fresh = await read();
  assert.deepEqual([fresh.status, fresh.words[0]], [200, 'CHANGES THE ETAG'], 'the new page leads with the addition');
  assert.notEqual(fresh.etag, first.etag);
});

test('a page of the API goes compressed to a client that takes it, each encoding with its own validator', async () => {
  const target = '/api/phrases?limit=200';
  const plain = await rawRequest(host.url, target);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.vary, 'accept-encoding', 'a cache keeps the encodings apart');
  const json = JSON.parse(plain.text);
  assert.equal(json.phrases.length, 200);
  const tags = new Set([plain.headers.etag]);
  for (const [coding, decode] of [['br', zlib.brotliDecompressSync], ['gzip', zlib.gunzipSync]]) {
    const packed = await rawRequest(host.url, target, { headers: [['Accept-Encoding', coding]] });
    assert.equal(packed.headers['content-encoding'], coding);
    assert.equal(packed.headers['content-type'], 'application/json');
    assert.equal(Number(packed.headers['content-length']), packed.body.length);
    assert.ok(packed.body.length < plain.body.length / 3, `${coding}: ${packed.body.length} of ${plain.body.length} bytes`);
    assert.deepEqual(JSON.parse(decode(packed.body).toString('utf8')), json);
    tags.add(packed.headers.etag);
    // Its validator revalidates its own encoding, not another's.
    const again = await rawRequest(host.url, target, { headers: [['Accept-Encoding', coding], ['If-None-Match', packed.headers.etag]] });
    assert.equal(again.status, 304, coding);
    assert.equal(again.headers['content-encoding'], undefined, 'a 304 has no body to encode');
    const other = await rawRequest(host.url, target, { headers: [['If-None-Match', packed.headers.etag]] });
    assert.equal(other.status, 200, `${coding}'s tag is not the plain page's`);
  }
  assert.equal(tags.size, 3);
});

test('another host with the same list, as behind a load balancer, answers a client\'s copy of a page with a 304', async () => {
  // The same store, as replicas share one Firestore; each host numbers its versions its own way.
  const copy = join(mkdtempSync(join(tmpdir(), 'lastwords-paging-')), 'backup.sqlite3');
  assert.equal((await host.cli('phrases', 'backup', copy)).code, 0);
  const other = await startHost({ prepare: (cli) => cli('phrases', 'restore', copy) });
  try {
    const { body } = await api('limit=7');
    for (const target of ['/api/phrases?limit=7', `/api/phrases?limit=7&after=${encodeURIComponent(body.next)}`]) {
      for (const coding of ['identity', 'gzip']) {
        const here = await rawRequest(host.url, target, { headers: [['Accept-Encoding', coding]] });
        const there = await rawRequest(other.url, target, { headers: [['Accept-Encoding', coding]] });
        const json = (response) => JSON.parse(coding === 'gzip' ? zlib.gunzipSync(response.body) : response.body);
        assert.deepEqual({ ...json(there), version: 0 }, { ...json(here), version: 0 }, `${target}: the same page`);
        assert.equal(there.headers.etag, here.headers.etag, `${target} ${coding}: one page, one validator`);
        const again = await rawRequest(other.url, target, { headers: [['Accept-Encoding', coding], ['If-None-Match', here.headers.etag]] });
        assert.equal(again.status, 304, `${target} ${coding}`);
      }
    }
  } finally {
    await other.stop();
    rmSync(dirname(copy), { recursive: true, force: true });
  }
});

const linkIn = (html, rel) => {
  const match = new RegExp(`<link rel="${rel}" href="([^"]+)">`).exec(html);
  return match ? match[1].replaceAll('&#38;', '&') : null;
};
const wordsIn = (html) => [...html.matchAll(/<a href="[^"]*"><bdi>([^<]*)<\/bdi>/g)].map((m) => m[1]);

test('without JavaScript, the pages of /words chain by rel=next from the first to the last and back by rel=prev', async () => {
  const expected = (await allPhrases(host.url)).map((p) => p.word);
  const words = [];
  let url = `${host.url}/words`;
  let pages = 0;
  let html;
  for (;;) {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    html = await response.text();
    pages += 1;
    const onPage = wordsIn(html);
    assert.ok(onPage.length <= 48, `${onPage.length} phrases on one page`);
    words.push(...onPage);
    const next = linkIn(html, 'next');
    if (next === null) break;
    url = new URL(next).pathname + new URL(next).search;
    url = `${host.url}${url}`;
  }
  assert.deepEqual(words, expected, 'every phrase once, newest first');
  assert.equal(pages, Math.ceil(expected.length / 48));
  let back = 0;
  for (let prev = linkIn(html, 'prev'); prev !== null; prev = linkIn(html, 'prev')) {
    html = await (await fetch(`${host.url}${new URL(prev).pathname}${new URL(prev).search}`)).text();
    back += wordsIn(html).length;
  }
  assert.equal(back + wordsIn(await (await fetch(url)).text()).length, expected.length, 'back to the first page');
});

test('every page of /words, not only the first, heads itself with the count minted now, and answers an old ETag with it', async () => {
  const countIn = (html) => /([\d,]+) Last Words minted/.exec(html)?.[1].replaceAll(',', '');
  const first = await (await fetch(`${host.url}/words`)).text();
  const pages = [];
  for (let html = first, next; (next = linkIn(html, 'next')) !== null && pages.length < 3; ) {
    const url = `${host.url}${new URL(next).pathname}${new URL(next).search}`;
    const response = await fetch(url);
    html = await response.text();
    pages.push({ url, etag: response.headers.get('etag') });
    assert.equal(countIn(html), countIn(first), `${url} before the change`);
  }
  assert.equal(pages.length, 3);
  for (const change of [['add', 'counted on each page', '--name', 'Count'], ['remove', (await allPhrases(host.url))[0].id]]) {
    const before = Number(countIn(await (await fetch(`${host.url}/words`)).text()));
    await cli('phrases', ...change);
    const now = String(before + (change[0] === 'add' ? 1 : -1));
    await poll(async () => countIn(await (await fetch(`${host.url}/words`)).text()), (count) => count === now, 10_000, 'the first page counts the change');
    for (const page of pages) {
      const response = await fetch(page.url, { headers: { 'If-None-Match': page.etag } });
      assert.equal(response.status, 200, `${page.url} after ${change[0]}: the old ETag still names the page`);
      assert.equal(countIn(await response.text()), now, `${page.url} after ${change[0]}`);
      page.etag = response.headers.get('etag');
    }
  }
});

test('phrases removed in one commit of more than 500, as a restore makes, answer 410 like one removed alone, also after a restart', async (t) => {
  // Its own folder, kept through the restart below.
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-gone-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const own = await startHost({ dataDir, phrases: [{ id: 'kept', word: 'KEPT', name: 'Stays' }] });
  try {
    const backup = join(own.dataDir, 'before.sqlite3');
    assert.equal((await own.cli('phrases', 'backup', backup)).code, 0);
    const temporary = Array.from({ length: 501 }, (_, i) => ({ word: `TEMPORARY ${i}`, name: 'Brief' }));
    writeFileSync(join(own.dataDir, 'temporary.json'), JSON.stringify(temporary));
    assert.equal((await own.cli('phrases', 'import', join(own.dataDir, 'temporary.json'))).code, 0);
    await poll(() => allPhrases(own.url), (phrases) => phrases.length === 502, 10_000, 'the import is served');
    const listed = await allPhrases(own.url);
    const ids = listed.filter((p) => p.word.startsWith('TEMPORARY')).map((p) => p.id);
    assert.equal((await fetch(`${own.url}/words/${ids[7]}`)).status, 200);
    const restored = await own.cli('phrases', 'restore', '--online', backup);
    assert.equal(restored.code, 0, restored.stderr);
    await poll(() => allPhrases(own.url), (phrases) => phrases.length === 1, 10_000, 'the restore is served');
    for (const id of [ids[0], ids[7], ids.at(-1)]) {
      const response = await fetch(`${own.url}/words/${encodeURIComponent(id)}`);
      assert.equal(response.status, 410, `/words/${id} after the restore`);
      assert.match(await response.text(), /removed/i);
    }
    assert.equal((await fetch(`${own.url}/words/never-was`)).status, 404);
    assert.equal((await fetch(`${own.url}/words/kept`)).status, 200);

    // And after a restart: the store keeps its removals, and a crawler that kept a link
    // is told the same, page and card, rather than that the phrase never was.
    await own.stop();
    const again = await startHost({ dataDir });
    try {
      for (const path of [`/words/${encodeURIComponent(ids[7])}`, `/words/${encodeURIComponent(ids[7])}/card.png`]) {
        assert.equal((await fetch(`${again.url}${path}`)).status, 410, `${path} after a restart`);
      }
      assert.equal((await fetch(`${again.url}/words/never-was`)).status, 404);
      assert.equal((await fetch(`${again.url}/words/kept`)).status, 200);
    } finally {
      await again.stop();
    }
  } finally {
    await own.stop();
  }
});
