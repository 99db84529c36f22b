// One Firestore listener in the host, fanned out over WebSockets, against a server that
// speaks the real Firestore gRPC protocol.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { startEmulator, startFirestoreHost } from '../support/emulator.mjs';
import { connectLive } from '../support/live-client.mjs';
import { allPhrases, startHost } from '../support/host.mjs';
import { freePort } from '../support/free-port.mjs';
import { eventually, poll, sleep } from '../support/poll.mjs';

let emulator;
let host;

before(async () => {
  ({ emulator, host } = await startFirestoreHost({
    a1: { word: 'SEE YOU LATER', name: 'Rex' },
    b2: { word: 'TOO BIG TO FAIL', name: 'Bronto' },
    bad: { word: 42, name: 'Broken' },
  }));
});

after(async () => {
  await host?.stop();
  await emulator?.stop();
});

async function apiWords() {
  return (await allPhrases(host.url)).map((p) => p.word).sort();
}

test('the initial snapshot has every well-formed document and skips the malformed one', async () => {
  await eventually(apiWords, ['SEE YOU LATER', 'TOO BIG TO FAIL'], 10_000, 'the initial snapshot served');
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
  const insert = client.messages.find((m) => m.changes?.some((c) => c.phrase?.word === 'RAWR'));
  assert.deepEqual(insert.changes.map((c) => c.phrase?.word), ['RAWR'], 'the change alone, not the collection the emulator re-sent');
  assert.equal((await allPhrases(host.url))[0].word, 'RAWR', 'the newest phrase (by create time) comes first');

  await emulator.set('a1', { word: 'SEE YOU SOON', name: 'Rex' });
  await client.until((c) => c.phrases.get('a1')?.word === 'SEE YOU SOON', 1000, 'the update');
  assert.notEqual((await allPhrases(host.url))[0].id, 'a1', 'an edit keeps its place');

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

test('removing an id no document can have says so, not the Firestore client\'s hint to its programmers', async () => {
  for (const id of ['a/b', '..']) {
    const removed = await host.cli('phrases', 'remove', id);
    assert.equal(removed.code, 1);
    assert.match(removed.stderr, /no phrase has the id/, id);
    assert.doesNotMatch(removed.stderr, /parent|parent_path/, id);
  }
});

test('a document that breaks the content rules is never shown, and is reported once, not on every write', async () => {
  await emulator.set('zw', { word: 'HEL\u200BLO', name: 'Zero Width' });
  await emulator.set('ctl', { word: 'FINE', name: '\u001b[2J' });
  for (let i = 0; i < 5; i++) await emulator.set(`other${i}`, { word: `OTHER ${i}`, name: 'n' });
  await eventually(async () => (await apiWords()).filter((w) => w.startsWith('OTHER')).length, 5, 5000, 'the five OTHER documents served');
  const words = await apiWords();
  assert.ok(!words.some((w) => w.includes('HEL')) && !words.includes('FINE'), words.join());
  const reports = host.log().split('\n').filter((line) => /words\/(zw|ctl)\b/.test(line));
  assert.equal(reports.length, 2, reports.join('\n'));
  assert.ok(!host.log().includes('\u001b[2J'), 'no raw escape in the log');
  for (let i = 0; i < 5; i++) await emulator.remove(`other${i}`);
  await emulator.remove('zw');
  await emulator.remove('ctl');
  // Settled before the next test takes its picture of the list.
  await eventually(async () => (await apiWords()).filter((w) => w.startsWith('OTHER')).length, 0, 5000, 'the OTHER documents removed');
});

test('the emulator killed and restarted with other data: the host keeps serving, then converges', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size >= 2, 2000, 'the snapshot');
  const before = await apiWords();
  const port = emulator.port;
  await emulator.stop();
  // Nothing in the host tells when it has lost the stream (the probe comes after 10 s of silence): give the loss a moment.
  await sleep(500);
  assert.deepEqual(await apiWords(), before, 'the last list keeps serving');
  const page = await fetch(`${host.url}/words`);
  assert.equal(page.status, 200);
  const html = await page.text();
  for (const word of before) assert.ok(html.includes(word), `/words lists ${word} while the source is down`);

  emulator = await startEmulator(port);
  await emulator.set('z9', { word: 'AFTER THE METEOR', name: 'Phoenix' });
  await client.until((c) => c.words().join() === 'AFTER THE METEOR', 15_000, 'convergence');
  await eventually(apiWords, ['AFTER THE METEOR'], 2000, 'the API converged on the new data');
  client.close();
});

// Behind a load balancer a replica whose Firestore stops answering turns /readyz to 503,
// which moves new visitors; its live browsers are told to go too (1013, Try Again Later),
// once, so they reconnect to a replica whose list is current. One that connects during
// the outage (here there is no other replica) stays, and is current again once
// Firestore answers.
test('a host whose Firestore stops answering sends its live browsers away once its list is stale', { timeout: 120_000 }, async () => {
  const { emulator: stopped, host: stale } = await startFirestoreHost({ s1: { word: 'BEFORE', name: 'Rex' } }, { args: ['--ready-stale-after-s', '2'] });
  try {
    const first = connectLive(stale.url);
    await first.until((c) => c.phrases.size === 1, 10_000, 'the snapshot');
    stopped.pause();
    const pausedAt = Date.now();
    await first.until((c) => c.closed !== null, 60_000, 'the socket sent away');
    assert.equal(first.closed, 1013);
    assert.equal((await fetch(`${stale.url}/readyz`)).status, 503, 'unready when the socket went');
    assert.ok(Date.now() - pausedAt >= 2000, 'not before the list was stale');

    const during = connectLive(stale.url);
    await during.until((c) => c.phrases.size === 1, 5000, 'the last list, during the outage');
    await sleep(3000);
    assert.equal(during.closed, null, 'a socket opened during the outage stays');
    stopped.resume();
    await stopped.set('s2', { word: 'AFTER', name: 'Rex' });
    await during.until((c) => c.words().includes('AFTER'), 60_000, 'the list current again');
    assert.equal(stale.log().match(/live browsers sent to reconnect/g)?.length, 1, stale.log());
    // The outage told once with the cause the host's probe met, and its end once; not the
    // Firestore client's ERROR at each of its retries, every second of it.
    await poll(() => stale.log(), (log) => log.includes('the phrase list comes from Firestore again'), 15_000, 'the end of the outage told');
    const log = stale.log();
    assert.match(log, /Firestore does not answer.*reason=/, log);
    assert.equal(log.match(/the phrase list comes from Firestore again/g)?.length, 1, log);
    assert.doesNotMatch(log, /ERROR|gcloud_sdk|listen_changes::event_loop/, log);
    during.close();
  } finally {
    stopped.resume();
    await stale.stop();
    await stopped.stop();
  }
});

test('a host whose Firestore is not there serves 503s saying the list has not loaded, and its log tells why once, not once a request', async () => {
  // Nothing listens here: every connection is refused.
  const nowhere = await freePort();
  const lonely = await startHost({ args: ['--firestore-project', 'test'], env: { FIRESTORE_EMULATOR_HOST: `127.0.0.1:${nowhere}` } });
  try {
    for (let n = 0; n < 20; n++) {
      for (const path of ['/api/phrases', '/words/any', '/sitemap.xml']) {
        const response = await fetch(`${lonely.url}${path}`);
        assert.equal(response.status, 503, path);
        await response.arrayBuffer();
      }
    }
    // Past four attempts (0.5, 1, 2 and 4 s apart, and up to half again): the cause is
    // told once, not at each of them.
    await sleep(12_000);
    assert.doesNotMatch(lonely.log(), /request failed/, lonely.log());
    assert.equal(lonely.log().match(/cannot (connect to|listen to) Firestore/g)?.length, 1, lonely.log());
    assert.doesNotMatch(lonely.log(), /reconnecting to Firestore/, lonely.log());
  } finally {
    await lonely.stop();
  }
});

/** A phrase page's lastmod in the sitemap and its entry's updated in the feed. */
async function dates(url, id) {
  const sitemap = await (await fetch(`${url}/sitemap.xml`)).text();
  const feed = await (await fetch(`${url}/feed.atom`)).text();
  const page = `${url}/words/${id}`;
  return {
    lastmod: sitemap.match(new RegExp(`<loc>${page}</loc><lastmod>([^<]+)</lastmod>`))?.[1],
    updated: feed.match(new RegExp(`<id>${page}</id>\\s*<title>[^<]*</title>\\s*<updated>([^<]+)</updated>`))?.[1],
  };
}

// Behind a load balancer a crawler reads the sitemap from every replica in turn: an edit
// dated by when each replica saw it, or by its mint where a replica started after it,
// would move the page's lastmod back and forth. Firestore's update time dates it alike.
test('an edit is dated by Firestore: a replica started after it (or the same host restarted) gives the same lastmod, feed date and dateModified', async () => {
  const { emulator: source, host: first } = await startFirestoreHost({ e1: { word: 'DATED ONCE', name: 'Dora' } });
  let replica;
  try {
    await eventually(async () => (await allPhrases(first.url)).map((p) => p.word), ['DATED ONCE'], 10_000, 'the phrase');
    const minted = await dates(first.url, 'e1');
    assert.ok(minted.lastmod && minted.updated, `dated at mint: ${JSON.stringify(minted)}`);
    // Past the second a date counts, so that the edit's date differs from the mint's.
    await sleep(1100);
    await source.set('e1', { word: 'DATED TWICE', name: 'Dora' });
    await eventually(async () => (await allPhrases(first.url)).map((p) => p.word), ['DATED TWICE'], 10_000, 'the edit');
    let edited;
    await poll(async () => (edited = await dates(first.url, 'e1')), (d) => d.lastmod !== minted.lastmod, 5000, 'the edit dated');
    assert.ok(Date.parse(edited.lastmod) > Date.parse(minted.lastmod), `${edited.lastmod} after ${minted.lastmod}`);
    assert.equal(edited.updated, edited.lastmod);
    await sleep(1100);
    replica = await startHost({ args: ['--firestore-project', 'test'], env: { FIRESTORE_EMULATOR_HOST: source.host } });
    await eventually(async () => (await allPhrases(replica.url)).map((p) => p.word), ['DATED TWICE'], 10_000, 'the replica\'s list');
    assert.deepEqual(await dates(replica.url, 'e1'), edited, 'a replica started after the edit dates it alike');
    assert.deepEqual(await dates(first.url, 'e1'), edited, 'and the first one still does');
    const page = await (await fetch(`${replica.url}/words/e1`)).text();
    assert.ok(page.includes(`"dateModified":"${edited.lastmod}"`), 'the page\'s structured data says when it was edited');
  } finally {
    await replica?.stop();
    await first.stop();
    await source.stop();
  }
});
