// The wall clock stepped under a running host, as NTP or an operator steps it: how long
// the phrase source has been away is measured on a clock a step does not move, so a step
// back does not hide an outage and a step forward does not make one of a moment.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { startHost } from '../support/host.mjs';
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

test('the clock stepped forward an hour, then back two, around an outage of the store: readiness follows the outage, not the clock', async (t) => {
  const clock = steppableClock();
  const host = await startHost({ args: ['--ready-stale-after-s', '3'], env: clock.env, prepare: (cli) => cli('phrases', 'add', 'TICK TOCK', '--name', 'Rex') });
  t.after(async () => {
    await host.stop();
    clock.remove();
  });
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
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 503, 15_000, '/readyz 503 once the outage lasts');
  const [, seconds] = /unreachable for (\d+) s/.exec(answer[1]) ?? [];
  assert.ok(Number(seconds) >= 3 && Number(seconds) < 60, answer[1]);

  renameSync(aside, store);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 200, 15_000, '/readyz 200 with the store back');

  // Gone again; this time the clock goes back an hour (two from where it was).
  renameSync(store, aside);
  await poll(() => metric(host.url, 'lastwords_feed_up'), (up) => up === 0, 10_000, 'the feed down again');
  clock.step(-3600);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 503, 15_000, '/readyz 503 though the clock went back');
  assert.match(answer[1], /^the phrase source has been unreachable for \d+ s/);
  renameSync(aside, store);
  await poll(async () => (answer = await readyz(host)), ([status]) => status === 200, 15_000, '/readyz 200 at the end');
});
