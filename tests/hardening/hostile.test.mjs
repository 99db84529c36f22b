// Hostile input from the public: every request in corpus.json gets a clean 4xx (or the
// page it asked for), every phrase, name and typed check comes back as text, the props
// JSON stays inert, and the host never panics.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { allPhrases, startHost } from '../support/host.mjs';
import { rawRequest } from '../support/raw-http.mjs';
import { connectLive } from '../support/live-client.mjs';
import { margin, medianMs } from '../support/timing.mjs';
import { assertNotRaw, assertOnlyOurMarkup, escapeHtml, propsOf } from './page.mjs';

const corpus = JSON.parse(readFileSync(new URL('./corpus.json', import.meta.url), 'utf8'));
/** A corpus value: text, or { repeat, times } for long text. */
const expand = (value) => (typeof value === 'object' && value !== null && 'repeat' in value ? value.repeat.repeat(value.times) : value);
const all = corpus.phrases.map(({ id, word, name, refused }) => ({ id: expand(id), word: expand(word), name: expand(name), refused }));
// What the content rules let into the store, and what they keep out.
const phrases = all.filter((p) => !p.refused).map(({ id, word, name }) => ({ id, word, name }));
const refused = all.filter((p) => p.refused);
const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
/** As stored, in id order: `created` says only where a phrase sits in the list. */
const asStored = (list) => list.map(({ id, word, name }) => ({ id, word, name })).sort(byId);

let host;

before(async () => {
  host = await startHost({ phrases: all.map(({ id, word, name }) => ({ id, word, name })) });
});

after(async () => {
  await host?.stop();
});

async function page(path) {
  const response = await fetch(`${host.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

test('every hostile request gets the status it should, and a refusal says why', async (t) => {
  for (const request of corpus.requests) {
    await t.test(request.name, async () => {
      const target = request.target + (request.pad ? request.pad.with.repeat(request.pad.times) : '');
      const headers = Array.isArray(request.headers)
        ? request.headers.map((h) => (Array.isArray(h) ? [h[0], expand(h[1])] : h))
        : request.headers
          ? Array(request.headers.times).fill(request.headers.repeat)
          : [];
      const response = await rawRequest(host.url, target, { method: request.method, headers });
      assert.equal(response.status, request.status, `status; body: ${response.text.slice(0, 200)}`);
      if (request.body) {
        assert.match(response.text, new RegExp(request.body), 'the body says what was wrong');
        // The JSON API's in JSON, every other one a line of text.
        if (/^\/api\/(?!phrases\/live)/.test(target)) {
          assert.equal(response.headers['content-type'], 'application/json', 'the API refuses in JSON');
          assert.match(JSON.parse(response.text).error, new RegExp(request.body));
        } else {
          assert.match(response.headers['content-type'] ?? '', /^text\/plain/, 'a refusal is plain text');
        }
      }
      if (request.never) assert.doesNotMatch(response.text, new RegExp(request.never));
      // A cached refusal outlives its cause (the next release's bundle 404 mid-deploy): what
      // is ours says so. hyper answers a head past its own limits or one it cannot parse
      // bare: a 400 or a 431, which no cache keeps, or a 414 for an address no one else asks.
      if (response.status >= 400 && response.status !== 400 && !request.hyper) {
        assert.match(response.headers['cache-control'] ?? '', /no-store|no-cache/, 'kept by no cache');
      }
      if (request.method === 'HEAD') {
        assert.equal(response.body.length, 0, 'HEAD has no body');
        // What a GET would send: its type, its length and its version.
        const get = await rawRequest(host.url, target, { headers });
        assert.equal(get.status, 200);
        for (const name of ['content-type', 'content-length', 'etag']) assert.equal(response.headers[name], get.headers[name], name);
        assert.equal(Number(response.headers['content-length']), get.body.length, 'the length of the page a GET gets');
      }
    });
  }
});

test('a browser following a broken or overlong link gets a page that says why and leads on; a client of the API gets the reason in JSON', async () => {
  const html = [['Accept', 'text/html,application/xhtml+xml,*/*;q=0.8']];
  for (const [target, status, title, back] of [
    ['/words?check=%ZZ', 400, 'This link is broken', 'href="/words">All Last Words'],
    ['/Words/%C0%AF', 400, 'This link is broken', 'href="/words">All Last Words'],
    ['/%FF', 400, 'This link is broken', 'href="/">Back to the home page'],
    [`/words?check=${'A'.repeat(9000)}`, 414, 'This link is too long', 'href="/words">All Last Words'],
  ]) {
    const page = await rawRequest(host.url, target, { headers: html });
    assert.equal(page.status, status, target);
    assert.match(page.headers['content-type'], /^text\/html/, target);
    assert.equal(page.headers['cache-control'], 'no-store', target);
    assert.equal(page.headers['x-content-type-options'], 'nosniff', target);
    assert.ok(page.text.includes(`<h1 class="font-display text-4xl font-black">${title}</h1>`), `${target}: ${page.text.slice(0, 300)}`);
    assert.ok(page.text.includes(back), target);
    assert.ok(page.text.includes('name="robots" content="noindex"'), target);
    const line = await rawRequest(host.url, target);
    assert.equal(line.status, status, target);
    assert.match(line.headers['content-type'], /^text\/plain/, `${target} without Accept: text/html`);
  }
  const api = await rawRequest(host.url, '/api/phrases/check?word=%ZZ', { headers: html });
  assert.equal(api.headers['content-type'], 'application/json', 'the API answers in its own terms');
  assert.match(JSON.parse(api.text).error, /% not followed by two hex digits/);
});

test('every typed check comes back escaped: in the page, in its props, from the API', async (t) => {
  for (const check of corpus.checks) {
    const { input, refused } = typeof check === 'string' ? { input: check } : check;
    await t.test(JSON.stringify(input), async () => {
      const { status, html } = await page(`/words?check=${encodeURIComponent(input)}`);
      assert.equal(status, 200);
      assertOnlyOurMarkup(html);
      assertNotRaw(html, [input]);
      const { value: props } = propsOf(html);
      assert.equal(props.check.input, input, 'the props carry the input exactly');
      assert.ok(html.includes(`value="${escapeHtml(input)}"`), 'the box shows what was typed, escaped');

      const api = await fetch(`${host.url}/api/phrases/check?word=${encodeURIComponent(input)}`);
      assert.match(api.headers.get('content-type'), /^application\/json/);
      const answer = await api.json();
      if (refused) {
        assert.equal(api.status, 400, `refused, answered ${JSON.stringify(answer)}`);
        assert.match(answer.error, new RegExp(refused));
      } else {
        assert.equal(api.status, 200, `checked, answered ${JSON.stringify(answer)}`);
        const taken = phrases.some((p) => p.word === input.toUpperCase());
        assert.deepEqual([answer.word, answer.available], [input.toUpperCase(), !taken], 'free unless the store holds it');
      }
    });
  }
});

test('a store of hostile phrases renders as text, and its props, API and live feed round-trip', async () => {
  const { status, html } = await page('/words');
  assert.equal(status, 200);
  assertOnlyOurMarkup(html);
  const texts = all.flatMap((p) => [p.id, p.word, p.name]);
  assertNotRaw(html, texts);
  for (const phrase of phrases) {
    // A phrase wider than its card carries its fit step.
    const shown = [`<bdi>`, ...[13, 15, 17.5, 20, 22.5, 25, 30, 35, 40].map((fit) => `<bdi data-fit="${fit}">`)];
    assert.ok(shown.some((open) => html.includes(`${open}${escapeHtml(phrase.word)}</bdi>`)), `the phrase ${phrase.id} shows as text`);
    assert.ok(html.includes(`By <bdi>${escapeHtml(phrase.name)}</bdi>`), `the name of ${phrase.id} shows as text`);
  }
  const expected = asStored(phrases);
  assert.deepEqual(asStored(propsOf(html).value.phrases), expected, 'the props parse back to the store');

  assert.deepEqual(asStored(await allPhrases(host.url)), expected, 'the API gives the store back');

  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size === phrases.length, 5000, 'the snapshot');
  assert.deepEqual(asStored([...client.phrases.values()]), expected, 'the live feed gives the store back');
  client.close();
});

test('what the content rules refuse is kept out of the store, and the log says which and why', async () => {
  assert.ok(refused.length >= 4);
  const listed = await allPhrases(host.url);
  for (const phrase of refused) {
    assert.ok(!listed.some((p) => p.id === phrase.id), `${phrase.id} (${phrase.refused}) is not stored`);
  }
  assert.equal((host.log().match(/not imported: #\d+/g) ?? []).length, refused.length, host.log());
  assert.doesNotMatch(host.log(), /[\u0001\u0007\u001b\u2028\u202e]/, 'the log holds no raw control or bidi character');
});

test('the other pages stay ours with a hostile store', async () => {
  for (const [path, wanted] of [['/', 200], ['/no/such/page', 404], ['/Words', 200]]) {
    const { status, type, html } = await page(path);
    assert.equal(status, wanted, path);
    assert.match(type, /^text\/html/);
    assertOnlyOurMarkup(html);
    assertNotRaw(html, phrases.flatMap((p) => [p.word, p.name]));
    propsOf(html);
  }
});

test('a look-alike letter makes a different word: both show as text, the check tells them apart and warns', async () => {
  const answer = async (word) => (await fetch(`${host.url}/api/phrases/check?word=${encodeURIComponent(word)}`)).json();
  const check = async (word) => (await answer(word)).available;
  const { html } = await page('/words');
  for (const { stored, lookalike, about } of corpus.homoglyphs) {
    assert.notEqual(stored, lookalike);
    assert.ok(html.includes(`<bdi>${stored}</bdi>`), `${stored} is listed as text`);
    assert.equal(await check(stored.toLowerCase()), false, `${stored} is taken`);
    assert.equal(await check(lookalike), true, `${lookalike} (${about}) is free`);
    const typed = await page(`/words?check=${encodeURIComponent(lookalike)}`);
    assert.equal(propsOf(typed.html).value.check.status, 'available', about);
    assert.equal((await answer(lookalike)).lookalike?.word, stored, `${about}: the API names what it reads like`);
    assert.equal(propsOf(typed.html).value.check.lookalike?.word, stored, about);
    assert.ok(typed.html.includes('But it reads like'), `${about}: the page says so under "It is available!"`);
    assert.ok(typed.html.includes(`value="${lookalike}"`), 'the look-alike shows as typed');
  }
});

test('slow requests: a request still waiting at the request timeout gets 408; headers that never end are cut off', async (t) => {
  // Every checked page is a render of its own, one at a time here: 800 at once queue for
  // seconds, well past the timeout.
  const many = Array.from({ length: 2_000 }, (_, i) => ({ id: `p${String(i).padStart(5, '0')}`, word: `PHRASE ${i}`, name: `Minter ${i}` }));
  // Many requests from one address at once: the rate limit is off (proxy.test.mjs tries it).
  const slow = await startHost({ phrases: many, args: ['--request-timeout-s', '1', '--render-timeout-ms', '30000', '--render-threads', '1', '--rate-limit-per-s', '0', '--max-connections-per-ip', '0'] });
  try {
    // A check's render on this machine now: waiting for the queue would take 800 of them,
    // so a 408 later than the timeout by half of that did not come at the timeout.
    let base = 0;
    const render = await medianMs(() => rawRequest(slow.url, `/words?check=BASE%20${base++}`));
    const lateBy = margin(render, 400, 2000);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 800 }, async (_, i) => {
        try {
          const response = await fetch(`${slow.url}/words?check=${encodeURIComponent(`PHRASE ${i}`)}`);
          const html = await response.text();
          return { status: response.status, took: Date.now() - started, whole: /<\/html>\s*$/.test(html), text: html };
        } catch (error) {
          return { status: `${error.cause?.code ?? error.message}`, took: Date.now() - started };
        }
      }),
    );
    const late = answers.filter((a) => a.status === 408);
    t.diagnostic(`${late.length} of 800 got 408; the last answer came after ${Math.max(...answers.map((a) => a.took))} ms`);
    assert.ok(late.length > 0, `statuses: ${[...new Set(answers.map((a) => a.status))]}`);
    // Nothing else: the checks wait for their turn (no queue overflows into 503), and a
    // check rendered in time is the whole page.
    assert.ok(answers.every((a) => [200, 408].includes(a.status)), `statuses: ${[...new Set(answers.map((a) => a.status))]}`);
    assert.ok(answers.every((a) => a.status !== 200 || a.whole), 'every 200 is a whole page');
    assert.deepEqual([...new Set(late.map((a) => a.text))], ['the request was not answered within 1 s; try again\n'], 'a 408 says why');
    const latest = Math.max(...late.map((a) => a.took));
    assert.ok(latest < 1000 + lateBy, `the last 408 came ${latest} ms after the first request, not at the 1 s timeout (+${lateBy} ms: a render took ${render.toFixed(1)} ms)`);
    // On a connection of its own: fetch's pooled ones have been idle past the 1 s the
    // host allows between requests, and one closing as it is picked fails the fetch.
    const health = await rawRequest(slow.url, '/healthz');
    assert.deepEqual([health.status, health.text], [200, 'ok'], 'the host goes on');

    await t.test('a client that never finishes its request headers is disconnected', async () => {
      const socket = net.connect(Number(new URL(slow.url).port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const closed = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), 1000 + lateBy);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      socket.destroy();
      assert.ok(closed, `still open ${1000 + lateBy} ms after the last byte, with a 1 s request timeout (+${lateBy} ms: a render took ${render.toFixed(1)} ms)`);
    });
  } finally {
    await slow.stop();
  }
});

test('the biggest page the host can serve comes whole within the request timeout', async (t) => {
  // A list page shows 48 phrases, so the biggest page is 48 at the content rules' byte
  // limits (server/src/text.rs, server/src/store.rs) in what grows most on the page: a
  // word of 400 bytes (14 tag flags of 28 bytes, and 8 more in 6 letters: 20 characters),
  // a name of 400 (the same flags and 8 letters), an id of 1,500 of '&', which a link
  // percent-encodes to three times that and the props escape to six; and the longest
  // check the 8,192-byte target holds, of '&' too.
  const flags = ['\u{E0065}\u{E006E}\u{E0067}', '\u{E0073}\u{E0063}\u{E0074}', '\u{E0077}\u{E006C}\u{E0073}']
    .map((region) => `\u{1F3F4}\u{E0067}\u{E0062}${region}\u{E007F}`);
  const flagsFor = (n) => Array.from({ length: 14 }, (_, k) => flags[Math.floor(n / 3 ** k) % 3]).join('');
  const phrases = Array.from({ length: 60 }, (_, i) => ({
    id: `p${String(i).padStart(2, '0')}-${'&'.repeat(1496)}`,
    word: `${flagsFor(i)}\u00c9\u00c9WORD`,
    name: `${flagsFor(0)}Dinosaur`,
  }));
  for (const { id, word, name } of phrases) {
    assert.deepEqual([Buffer.byteLength(id), Buffer.byteLength(word), Buffer.byteLength(name)], [1500, 400, 400]);
  }
  const check = '%26'.repeat(Math.floor((8192 - '/words?check='.length) / 3));
  assert.ok(`/words?check=${check}`.length <= 8192 && `/words?check=${check}%26`.length > 8192);
  // The request timeout the host ships with (15 s); the render timeout lifted, which a
  // debug build on a slow machine might meet first.
  const big = await startHost({ phrases, args: ['--render-timeout-ms', '30000', '--rate-limit-per-s', '0'] });
  try {
    assert.doesNotMatch(big.log(), /not imported/, 'every phrase is within the rules');
    const started = Date.now();
    const response = await fetch(`${big.url}/words?check=${check}`);
    const html = await response.text();
    const took = Date.now() - started;
    t.diagnostic(`${response.status}: ${Buffer.byteLength(html)} bytes after ${took} ms`);
    assert.equal(response.status, 200, 'answered, not refused or timed out');
    assert.ok(took < 15_000, `${took} ms, past the 15 s request timeout`);
    assert.match(html, /<\/html>\s*$/, 'the whole page');
    const shown = phrases.slice(-48).reverse();
    for (const phrase of shown) {
      assert.ok(html.includes(`<bdi>${phrase.word}</bdi>`), `${phrase.word.slice(-6)} is on the page`);
      assert.ok(html.includes(`/words/${encodeURIComponent(phrase.id)}`), `${phrase.id.slice(0, 3)} is linked`);
    }
    assert.ok(!html.includes(`<bdi>${phrases[11].word}</bdi>`), 'the 49th newest is on the next page');
    assert.equal(propsOf(html).value.check.input, '&'.repeat(check.length / 3));
    assert.ok(Buffer.byteLength(html) > 48 * (400 + 400 + 3 * 1500 + 6 * 1500), 'every one of them in full');
  } finally {
    await big.stop();
  }
});

test('the host still answers after all of it', async () => {
  const health = await fetch(`${host.url}/healthz`);
  assert.deepEqual([health.status, await health.text()], [200, 'ok']);
});
