// The wall clock stepped under a running host, as NTP or an operator steps it: how long
// the phrase source has been away is measured on a clock a step does not move, so a step
// back does not hide an outage and a step forward does not make one of a moment.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { allPhrases, runCli, startHost } from '../support/host.mjs';
import { steppableClock } from '../support/clock.mjs';
import { poll } from '../support/poll.mjs';

const STORE = 'phrases.sqlite3';

const readyz = async (host) => {
  const response = await fetch(`${host.url}/readyz`);
  return [response.status, await response.text()];
};

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

/** A host, and a wall clock for the CLI that writes to its store, apart from the host's. */
async function hostAndWriter(t) {
  const host = await startHost();
  t.after(() => host.stop());
  return { host, writer: steppableClock(t) };
}

test('the clock stepped forward an hour, then back two, around an outage of the store: readiness follows the outage, not the clock', async (t) => {
  const clock = steppableClock(t);
  // 10 s: a loaded runner may take seconds between noticing the outage and asking again.
  const host = await startHost({ args: ['--ready-stale-after-s', '10'], env: clock.env, prepare: (cli) => cli('phrases', 'add', 'TICK TOCK', '--name', 'Rex') });
  t.after(() => host.stop());
  const store = join(host.dataDir, STORE);
  const aside = join(host.dataDir, 'aside.sqlite3');
  let answer;
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 200, 10_000, '/readyz 200');

  // The store goes missing; the clock jumps an hour ahead a moment later.
  renameSync(store, aside);
  await poll(() => metric(host.url, 'lastwords_feed_up'), (up) => up === 0, 10_000, 'the feed down');
  clock.step(3600);
  assert.equal((await readyz(host))[0], 200, 'an outage of a moment is not one of an hour');
  assert.ok((await metric(host.url, 'lastwords_feed_seconds_since_sync')) < 60, 'the time since the list came is not an hour');
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 503, 30_000, '/readyz 503 once the outage lasts');
  const [, seconds] = /unreachable for (\d+) s/.exec(answer[1]) ?? [];
  assert.ok(Number(seconds) >= 10 && Number(seconds) < 60, answer[1]);

  renameSync(aside, store);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 200, 15_000, '/readyz 200 with the store back');

  // Gone again; this time the clock goes back an hour (two from where it was).
  renameSync(store, aside);
  await poll(() => metric(host.url, 'lastwords_feed_up'), (up) => up === 0, 10_000, 'the feed down again');
  clock.step(-3600);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 503, 30_000, '/readyz 503 though the clock went back');
  assert.match(answer[1], /^the phrase source has been unreachable for \d+ s/);
  renameSync(aside, store);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 200, 15_000, '/readyz 200 at the end');
});

test('phrases minted by a clock set years ahead: the order kept and said, no time a browser cannot read, and a time put right by hand followed', async (t) => {
  const { host, writer } = await hostAndWriter(t);
  const add = async (word) => {
    const { code, stderr } = await runCli(['--data-dir', host.dataDir, 'phrases', 'add', word, '--name', 'Rex'], writer.env);
    assert.equal(code, 0, stderr);
    return stderr;
  };
  const YEAR_S = 365.25 * 86_400;
  writer.step(Math.round((2300 - new Date().getUTCFullYear()) * YEAR_S));
  await add('FROM 2300');
  writer.step(Math.round(73 * YEAR_S));
  await add('FROM THE SEVENTIES');
  writer.step(0);
  // Dated after the phrase from the seventies, to keep the order of minting, and said.
  assert.match(await add('RIGHT ON TIME'), /note: dated 2\d{3}-\d\d-\d\dT[\d:.]+Z, 26\d\d\d days ahead of this machine's clock: a phrase in the store is dated there/);
  let phrases;
  await poll(async () => (phrases = await allPhrases(host.url)), (list) => list.some((p) => p.word === 'RIGHT ON TIME'), 10_000, 'the three served');
  // Every time a browser is handed is one it reads exactly: a larger one made it refuse
  // every list and every live update after it.
  assert.ok(phrases.every((p) => Number.isSafeInteger(p.created)), JSON.stringify(phrases.map((p) => p.created)));
  assert.deepEqual(phrases.slice(0, 3).map((p) => p.word), ['FROM 2300', 'RIGHT ON TIME', 'FROM THE SEVENTIES']);
  const check = await (await fetch(`${host.url}/api/phrases/check?word=from%202300`)).json();
  assert.equal(check.available, false, 'the checker still answers');

  // The operator writes the right times with the sqlite3 shell; the running host follows,
  // and the next phrase is dated by the clock again.
  const fix = spawnSync('sqlite3', [join(host.dataDir, STORE), "UPDATE phrases SET created = 1600000000000000 + length(word) WHERE word IN ('FROM 2300', 'FROM THE SEVENTIES', 'RIGHT ON TIME');"], { encoding: 'utf8' });
  assert.equal(fix.status, 0, fix.stderr);
  const ends = (list) => list.slice(-3).map((p) => p.word).join();
  await poll(async () => ends(await allPhrases(host.url)), (words) => words === 'FROM THE SEVENTIES,RIGHT ON TIME,FROM 2300', 10_000, 'the times put right, without a restart');
  const before = Date.now() * 1000;
  assert.doesNotMatch(await add('AFTER THE FIX'), /note: dated/);
  await poll(async () => (phrases = await allPhrases(host.url)), (list) => list[0].word === 'AFTER THE FIX', 10_000, 'the next phrase on top');
  assert.ok(phrases[0].created >= before && phrases[0].created < before + 60_000_000, `dated now: ${phrases[0].created}`);
});

test('an idle embedded store confirms its list as Firestore does: the time since a confirmed list stays under a minute', async (t) => {
  const host = await startHost();
  t.after(() => host.stop());
  // The follower looks at the store's path every 30 s when nothing happens.
  await new Promise((resolve) => setTimeout(resolve, 36_000));
  const since = await metric(host.url, 'lastwords_feed_seconds_since_sync');
  assert.ok(since >= 0 && since < 20, `${since} s since the list was confirmed, 36 s after the start`);
});

test('the clock stepped back two hours: every answer is dated by the clock as it is now, the router\'s as the cached pages\'', async (t) => {
  const clock = steppableClock(t);
  const host = await startHost({ env: clock.env });
  t.after(() => host.stop());
  const paths = ['/healthz', '/api/phrases?limit=1', '/feed.atom', '/words', '/words'];
  const dates = async () => Promise.all(paths.map(async (path) => Date.parse((await fetch(`${host.url}${path}`)).headers.get('date'))));
  for (const date of await dates()) assert.ok(Math.abs(date - Date.now()) < 5000, `${new Date(date).toISOString()}`);
  clock.step(-7200);
  // Past the second hyper's own dates were made for, so each has been asked to move.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  // Asked again for a few seconds: under a loaded CI run one answer once read the clock as
  // it was before the step, libfaketime's reading of its offset racing between threads. A
  // date that only moves forward would stay two hours ahead, and fail all the same.
  const late = (stepped) =>
    stepped
      .map((date, i) => [paths[i], date])
      .filter(([, date]) => Math.abs(date - (Date.now() - 7_200_000)) >= 5000)
      .map(([path, date]) => `${path}: ${new Date(date).toISOString()}, two hours before ${new Date().toISOString()}`);
  await poll(async () => late(await dates()), (wrong) => wrong.length === 0, 5000, 'every answer dated by the stepped clock');
});

test('a clock before 1970 is refused at start with what to do, not a host that says it serves and drops every connection', async (t) => {
  const clock = steppableClock(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-clock-data-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  clock.step(-Math.round(Date.now() / 1000) - 3600);
  const { code, stderr } = await runCli(['serve', '--port', '0', '--data-dir', dataDir], clock.env);
  assert.equal(code, 1);
  assert.match(stderr, /the system clock reads 3\d{3} s before 1970-01-01, outside 1970 to 9999, where HTTP dates are; set it right \(NTP\) and start again/);
  assert.doesNotMatch(stderr, /serving|panicked/);
});

test('a phrase is not minted by a clock before phrase times begin (2001-09-09), which would give it no time to be listed by', async (t) => {
  const { host, writer } = await hostAndWriter(t);
  writer.step(Math.round(Date.parse('1995-01-01T00:00:00Z') / 1000 - Date.now() / 1000));
  for (const args of [['add', 'TOO EARLY', '--name', 'Rex'], ['import', '-']]) {
    const { code, stderr } = await runCli(['--data-dir', host.dataDir, 'phrases', ...args], writer.env);
    assert.equal(code, 1, args.join(' '));
    assert.match(stderr, /the system clock reads 199[45]-\d\d-\d\dT[\d:]+Z, before 2001-09-09T01:46:40Z, where phrase times begin: a phrase minted now would have no time to be listed by\. Set the clock right \(NTP\) and mint again/);
  }
  assert.ok(!(await allPhrases(host.url)).some((p) => p.word === 'TOO EARLY'));
});
