// Firestore's answers that the npm emulator never gives, from a scripted Listen peer
// (tests/support/listen-peer.mjs), through the real host: a resume with a token after a
// dropped stream (only the changes re-sent), an existence filter that disagrees, a
// RESET, PERMISSION_DENIED and UNAUTHENTICATED, a stream that falls silent. Each twice.
// And the operator's commands against a Firestore that never answers.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allPhrases, runCli, startHost } from '../support/host.mjs';
import { startListenPeer } from '../support/listen-peer.mjs';
import { poll } from '../support/poll.mjs';
import { margin } from '../support/timing.mjs';
import { steppableClock } from '../support/clock.mjs';

/** The words the host serves, or [] while it has no list yet (503). */
async function words(url) {
  try {
    return (await allPhrases(url)).map((p) => p.word).sort();
  } catch (error) {
    if (/503/.test(error.message)) return [];
    throw error;
  }
}

/** Polls `check` until it returns something truthy, and returns that. */
async function until(what, check, ms = 10_000) {
  let last;
  await poll(async () => (last = await check()), Boolean, ms, what);
  return last;
}

async function setUp(t, args = [], env = {}) {
  const peer = await startListenPeer();
  // Stopped even when the host fails to start: a peer left listening keeps this file's
  // process alive until the runner's backstop, twenty minutes on.
  let host;
  t.after(async () => {
    await host?.stop();
    await peer.stop();
  });
  host = await startHost({
    args: ['--firestore-project', 'test', '--ready-stale-after-s', '1', ...args],
    env: { FIRESTORE_EMULATOR_HOST: peer.host, ...env },
  });
  return { peer, host };
}

/** /readyz as [status, body]. */
async function readyz(url) {
  const response = await fetch(`${url}/readyz`);
  return [response.status, await response.text()];
}

// The host's schedule for a listener that falls silent (server/src/store/firestore/follow.rs):
// it looks every PROBE_AFTER / 2 (5 s), probes once the stream has been silent for
// PROBE_AFTER (10 s), gives the probe PROBE_TIMEOUT (5 s), then reconnects after the first
// backoff (0.5 s, up to half again of jitter). Silent since just after a look, a stream is
// replaced at most this long after it fell silent, plus what the work takes on this machine.
const SILENT_STREAM_REPLACED_MS = 10_000 + 5_000 + 5_000 + 750;

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

test('a dropped stream resumes with its token and only the changes are sent again; twice', async (t) => {
  const { peer, host } = await setUp(t);
  let call = await peer.nextCall();
  assert.equal(call.resumeToken, '', 'a first listen has no token');
  call.add();
  call.doc('a', 'FIRST', 'Ann', 1000);
  call.doc('b', 'SECOND', 'Bob', 2000);
  call.current('token-1');
  await until('the first list', async () => (await words(host.url)).join() === 'FIRST,SECOND');
  for (const [round, id, word] of [[2, 'c', 'THIRD'], [3, 'd', 'FOURTH']]) {
    call.fail(peer.status.UNAVAILABLE, 'the connection dropped');
    call = await peer.nextCall();
    assert.equal(call.resumeToken, `token-${round - 1}`, 'the host resumes from the last token');
    call.add(`token-${round - 1}`);
    call.doc(id, word, 'Cat', round * 1000);
    call.current(`token-${round}`);
    await until(`${word} after the resume`, async () => (await words(host.url)).includes(word));
  }
  assert.deepEqual(await words(host.url), ['FIRST', 'FOURTH', 'SECOND', 'THIRD'], 'nothing lost to a resume that re-sent only the changes');
});

test('an existence filter that disagrees makes the host read the target again, nothing lost or doubled; twice', async (t) => {
  const { peer, host } = await setUp(t);
  let call = await peer.nextCall();
  call.add();
  call.doc('a', 'ONE', 'Ann', 1000);
  call.doc('b', 'TWO', 'Bob', 2000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).join() === 'ONE,TWO');
  const full = [['a', 'ONE'], ['b', 'TWO'], ['c', 'THREE']];
  for (let round = 1; round <= 2; round++) {
    // Firestore says the target holds one document more than the host was sent.
    call.filter(full.length + round - 1);
    call = await peer.nextCall();
    if (round === 2) full.push(['d', 'FOUR']);
    call.add();
    for (const [i, [id, word]] of full.entries()) call.doc(id, word, 'Ann', (i + 1) * 1000);
    call.current(`t${round + 1}`);
    const expected = full.map(([, w]) => w).sort();
    await until(`the list re-read (round ${round})`, async () => (await words(host.url)).join() === expected.join());
    assert.equal(await metric(host.url, 'lastwords_feed_resyncs_total'), round);
  }
});

test('RESET drops what the re-sent set leaves out; twice', async (t) => {
  const { peer, host } = await setUp(t);
  const call = await peer.nextCall();
  call.add();
  call.doc('a', 'KEEP', 'Ann', 1000);
  call.doc('b', 'GONE SOON', 'Bob', 2000);
  call.doc('c', 'ALSO GONE', 'Cat', 3000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).length === 3);
  call.reset();
  call.doc('a', 'KEEP', 'Ann', 1000);
  call.doc('c', 'ALSO GONE', 'Cat', 3000);
  call.current('t2');
  await until('the list after the first RESET', async () => (await words(host.url)).join() === 'ALSO GONE,KEEP');
  call.reset();
  call.doc('a', 'KEEP', 'Ann', 1000);
  call.current('t3');
  await until('the list after the second RESET', async () => (await words(host.url)).join() === 'KEEP');
});

test('a resumed listen refused as stale is read again from scratch: what it no longer sends is gone', async (t) => {
  const { peer, host } = await setUp(t);
  let call = await peer.nextCall();
  call.add();
  call.doc('a', 'STAYS', 'Ann', 1000);
  call.doc('b', 'DELETED MEANWHILE', 'Bob', 2000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).length === 2);
  call.fail(peer.status.UNAVAILABLE, 'the connection dropped');
  call = await peer.nextCall();
  assert.equal(call.resumeToken, 't1');
  call.fail(peer.status.INVALID_ARGUMENT, 'the resume token is too old');
  // The client drops its tokens and listens afresh: the whole target, less b.
  call = await peer.nextCall();
  assert.equal(call.resumeToken, '', 'listened again without the refused token');
  call.add();
  call.doc('a', 'STAYS', 'Ann', 1000);
  call.current('t2');
  await until('the deleted phrase gone', async () => (await words(host.url)).join() === 'STAYS');
  assert.equal((await fetch(`${host.url}/words/b`)).status, 410);
});

test('a RESET cut short by the stream dropping is swept by the stream opened after it', async (t) => {
  const { peer, host } = await setUp(t);
  let call = await peer.nextCall();
  call.add();
  call.doc('a', 'STAYS', 'Ann', 1000);
  call.doc('b', 'DELETED MEANWHILE', 'Bob', 2000);
  call.doc('c', 'ALSO DELETED', 'Cat', 3000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).length === 3);
  call.reset();
  call.doc('b', 'DELETED MEANWHILE', 'Bob', 2000);
  call.fail(peer.status.UNAVAILABLE, 'the connection dropped');
  call = await peer.nextCall();
  call.add();
  call.doc('a', 'STAYS', 'Ann', 1000);
  call.current('t2');
  await until('only what the new stream sent', async () => (await words(host.url)).join() === 'STAYS');
});

for (const [name, code] of [['PERMISSION_DENIED', 7], ['UNAUTHENTICATED', 16]]) {
  test(`${name}: a clear log line, /readyz 503, the last list kept; twice, then back`, async (t) => {
    const { peer, host } = await setUp(t);
    let call = await peer.nextCall();
    call.add();
    call.doc('a', 'STILL HERE', 'Ann', 1000);
    call.current('t1');
    await until('the first list', async () => (await words(host.url)).join() === 'STILL HERE');
    peer.refuseWith = { code, details: `${name.toLowerCase()} by the scripted peer` };
    call.fail(code, `${name.toLowerCase()} by the scripted peer`);
    await until('two refused listens', async () => (peer.refused ?? 0) >= 2, 20_000);
    const [, ready] = await until('/readyz 503', async () => {
      const answer = await readyz(host.url);
      return answer[0] === 503 ? answer : null;
    }, 40_000);
    assert.match(ready, new RegExp(`^the phrase source has been unreachable for \\d+ s: .*${name.toLowerCase()} by the scripted peer`), 'the operator reads why');
    assert.deepEqual(await words(host.url), ['STILL HERE'], 'the last list is kept');
    assert.match(host.log(), new RegExp(name.replace('_', '.?'), 'i'), 'the log names the refusal');
    peer.refuseWith = null;
    call = await peer.nextCall(30_000);
    call.add();
    call.doc('a', 'STILL HERE', 'Ann', 1000);
    call.doc('b', 'BACK AGAIN', 'Bob', 2000);
    call.current('t2');
    // Ready can come a moment before the re-sent list is applied (a probe query answers
    // first), so wait for both rather than read the list once.
    await until('ready again', async () => (await readyz(host.url)).join() === '200,ready', 20_000);
    await until('the list after the refusal', async () => (await words(host.url)).join() === 'BACK AGAIN,STILL HERE', 20_000);
  });
}

test('a stream that falls silent without an error is found out by the probe and opened again; twice', async (t) => {
  const starting = Date.now();
  const { peer, host } = await setUp(t);
  let call = await peer.nextCall();
  // What starting a host and opening its first stream took here: replacing a stream is
  // the same work, so the margin past the host's schedule grows with it.
  const lateBy = margin(Date.now() - starting, 2, 3000);
  call.add();
  call.doc('a', 'QUIET', 'Ann', 1000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).join() === 'QUIET');
  for (let round = 1; round <= 2; round++) {
    peer.hangQueries = true;
    const silentSince = Date.now();
    // Nothing more on the stream, and the probe query never answers: the host must
    // give up on this stream and open a new one.
    const next = peer.nextCall(60_000);
    const [, notReady] = await until('/readyz 503 while Firestore is silent', async () => {
      const answer = await readyz(host.url);
      return answer[0] === 503 ? answer : null;
    }, 60_000);
    assert.match(notReady, /^the phrase source has been unreachable for \d+ s: Firestore does not answer: ./, 'the operator reads why');
    peer.hangQueries = false;
    call = await next;
    const took = Date.now() - silentSince;
    t.diagnostic(`silent stream replaced after ${took} ms (the host's schedule ${SILENT_STREAM_REPLACED_MS} ms, this machine's margin ${lateBy} ms)`);
    assert.ok(took < SILENT_STREAM_REPLACED_MS + lateBy, `a silent stream was replaced only after ${took} ms, over the host's ${SILENT_STREAM_REPLACED_MS} ms and ${lateBy} ms for this machine`);
    call.add(call.resumeToken || undefined);
    call.doc(`r${round}`, `ROUND ${round}`, 'Ann', 1000 + round);
    call.current(`t${round + 1}`);
    await until(`ROUND ${round} after the new stream`, async () => (await words(host.url)).includes(`ROUND ${round}`), 20_000);
    assert.deepEqual(await readyz(host.url), [200, 'ready']);
  }
});

test('a stream that falls silent just as the clock is stepped back an hour is found out all the same', async (t) => {
  const clock = steppableClock(t);
  const { peer, host } = await setUp(t, [], clock.env);
  const call = await peer.nextCall();
  call.add();
  call.doc('a', 'STEPPED', 'Ann', 1000);
  call.current('t1');
  await until('the first list', async () => (await words(host.url)).join() === 'STEPPED');
  peer.hangQueries = true;
  const next = peer.nextCall(60_000);
  clock.step(-3600);
  const [, notReady] = await until('/readyz 503 while Firestore is silent, the clock an hour back', async () => {
    const answer = await readyz(host.url);
    return answer[0] === 503 ? answer : null;
  }, 60_000);
  assert.match(notReady, /^the phrase source has been unreachable for \d+ s: Firestore does not answer: ./);
  peer.hangQueries = false;
  await next;
});

test("a command against a Firestore that never answers ends within half a minute and says so in a line, not a minute and a half of the client's retries", async (t) => {
  // A connection that never speaks, not even HTTP/2's greeting; a Firestore whose queries
  // never come back; one whose commit never does, after its reads found the word free.
  const silent = createServer((socket) => socket.on('data', () => {}));
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const hung = await startListenPeer();
  hung.hangQueries = true;
  const writing = await startListenPeer();
  writing.emptyQueries = true;
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-silent-'));
  t.after(async () => {
    silent.close();
    await hung.stop();
    await writing.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const command = async (emulator, ...args) => {
    const started = Date.now();
    const result = await runCli(['--data-dir', dataDir, '--firestore-project', 'test', 'phrases', ...args], { FIRESTORE_EMULATOR_HOST: emulator });
    return { ...result, seconds: (Date.now() - started) / 1000, emulator };
  };
  const runs = await Promise.all([
    command(`127.0.0.1:${silent.address().port}`, 'add', '--name', 'Bob', 'HELLO'),
    command(hung.host, 'list'),
    command(writing.host, 'add', '--name', 'Bob', 'HELLO'),
  ]);
  const said = (emulator, what, asked = 'twice') =>
    `lastwords: the Firestore emulator at ${emulator} (FIRESTORE_EMULATOR_HOST) for project "test" did not answer within 10 s, asked ${asked} (${what} on collection "words")`;
  const [read, list, commit] = runs;
  for (const run of runs) {
    assert.equal(run.code, 1, `${run.emulator}: ${run.stderr}`);
    // Twice ten seconds and the client's pause between; a minute and a half before.
    assert.ok(run.seconds < 45, `${run.emulator}: the command took ${run.seconds} s`);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line, not the client's retries:\n${run.stderr}`);
  }
  assert.equal(read.stderr.trim(), said(read.emulator, 'query'));
  assert.equal(list.stderr.trim(), said(list.emulator, 'query'));
  assert.ok(hung.queries >= 2, `the query was asked again (${hung.queries})`);
  // A commit the client gave up on may have been applied all the same, so it is not sent again.
  assert.equal(
    commit.stderr.trim(),
    `${said(commit.emulator, 'commit', 'once')}; whether the write was applied is not known until it answers again (\`lastwords phrases list\` shows it)`,
  );
  assert.equal(writing.commits, 1, 'the commit was sent once');
});
