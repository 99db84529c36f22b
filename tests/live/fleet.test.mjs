// A fleet as it runs behind a load balancer: three `serve` replicas on one Firestore
// (the emulator speaks its real gRPC protocol), writes through each replica's CLI and
// straight to Firestore from another client, one replica killed and started again
// mid-stream, the emulator paused. Every replica ends with exactly the collection, every
// live client converges, a burst at the highest rate the emulator takes arrives whole, a
// phrase raced from every replica has one owner, and the time from a write to every live
// client is measured, less any time the machine itself stood still.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../support/emulator.mjs';
import { allPhrases, startHost } from '../support/host.mjs';
import { connectLive } from '../support/live-client.mjs';
import { eventually, poll, sleep } from '../support/poll.mjs';
import { margin, watchStalls } from '../support/timing.mjs';
const REPLICAS = 3;
const CLIENTS_PER_REPLICA = 2;
// Writes in each steady round; more (FLEET_WRITES=500) shows the tail on a local run.
const ROUND_WRITES = Number(process.env.FLEET_WRITES ?? 15);

// One address for the fleet, as its load balancer gives it: what the pages link to and
// the origin browsers open sockets from.
const PUBLIC_URL = 'https://dinos.example';

function replica(emulator, dataDir) {
  return startHost({
    dataDir,
    args: ['--firestore-project', 'test', '--rate-limit-per-s', '0', '--public-url', PUBLIC_URL],
    env: { FIRESTORE_EMULATOR_HOST: emulator.host },
  });
}

function clientsOf(host) {
  const clients = Array.from({ length: CLIENTS_PER_REPLICA }, () => connectLive(host.url, undefined, { origin: PUBLIC_URL }));
  for (const client of clients) client.opened.catch(() => {});
  return clients;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

test('three replicas on one Firestore: writes from everywhere, a replica restarted, the emulator paused; all converge', { timeout: 180_000 + ROUND_WRITES * 1000 }, async (t) => {
  const stalls = watchStalls();
  const emulator = await startEmulator();
  const dirs = Array.from({ length: REPLICAS }, () => mkdtempSync(join(tmpdir(), 'lastwords-fleet-')));
  const hosts = [];
  let clients = [];
  t.after(async () => {
    stalls.stop();
    for (const client of clients.flat()) client.close();
    for (const host of hosts) await host.stop();
    emulator.resume();
    await emulator.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const dir of dirs) hosts.push(await replica(emulator, dir));
  clients = hosts.map(clientsOf);
  await Promise.all(clients.flat().map((c) => c.until((me) => me.messages.length > 0, 10_000, 'the first snapshot')));

  // Straight to Firestore, timed from the write to the moment every live client of every
  // replica that stays up shows it. Issue 21's 6.5 s straggler was the machine, not the
  // fleet: under other work this shared runner stops every process on it at once (the
  // emulator, the hosts and this one, none using CPU) for up to 10 s, and the write
  // arrives when they run again. That time is measured here and not counted.
  // A round keeps to 20 documents, rewriting them in turn, so a longer run still measures
  // the fleet: the emulator re-sends the whole collection on every write, and the
  // restarted replica's clients start from one page (48 phrases) of it.
  const writes = [];
  const direct = async (n, id) => {
    const word = `DIRECT ${n}`;
    const started = Date.now();
    await emulator.set(id, { word, name: 'Other client' });
    const steady = [clients[0], clients[2]].flat();
    const arrived = await Promise.all(
      steady.map((c) => c.until((me) => me.words().includes(word), 20_000, `${word} on a steady replica`).then(() => Date.now())),
    );
    const ended = Math.max(...arrived);
    writes.push({ word, took: ended - started, stalled: stalls.during(started, ended), last: arrived.indexOf(ended) });
  };

  const cliAdds = [];
  const writer = async (round) => {
    for (let i = 0; i < 5; i++) {
      const host = hosts[i % REPLICAS];
      const result = await host.cli('phrases', 'add', `CLI ${round} ${i}`, '--name', `Replica ${i % REPLICAS}`);
      assert.equal(result.code, 0, result.stderr);
      cliAdds.push(`CLI ${round} ${i}`);
    }
  };

  // Round one: all up, writes at five a second.
  for (let n = 0; n < ROUND_WRITES; n++) {
    await Promise.all([direct(n, `one-${n % 20}`), sleep(200)]);
  }
  // The machine stalls: the emulator and the hosts stop, then this process too, for 3 s.
  // The write made meanwhile arrives once they run again, and the time all stood still
  // is not the hosts'.
  const fleet = [emulator.pid, ...hosts.map((host) => host.pid)].join(' ');
  const freezer = spawn('sh', ['-c', `kill -STOP ${fleet}; sleep 0.3; kill -STOP ${process.pid}; sleep 3; kill -CONT ${process.pid} ${fleet}`]);
  const resumed = once(freezer, 'exit');
  const state = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
  await poll(() => state(emulator.pid), (s) => s === 'T', 5000, 'the emulator stopped');
  await direct(50_000, 'stalled');
  await resumed;
  await writer(1);

  // Replica 1 dies mid-stream and comes back on its data folder (its saved list first).
  hosts[1].signal('SIGKILL');
  await hosts[1].exited;
  for (const client of clients[1]) client.close();
  // Written while it is down: it comes back to a collection that moved on without it.
  await Promise.all(Array.from({ length: 10 }, (_, k) => direct(100_000 + k, `outage-${k}`)));
  hosts[1] = await replica(emulator, dirs[1]);
  clients[1] = clientsOf(hosts[1]);

  // The emulator stops answering for 3 s, then resumes; writes queue behind it.
  emulator.pause();
  await sleep(3000);
  emulator.resume();
  for (let n = 200_000; n < 200_000 + ROUND_WRITES; n++) {
    await Promise.all([direct(n, `two-${n % 20}`), sleep(200)]);
  }
  await writer(2);

  // As fast as the emulator takes writes: four writers back to back for 3 s, while a
  // CLI on each replica adds one. Every live client has the whole burst soon after.
  const burst = [];
  const burstEnds = Date.now() + 3000;
  await Promise.all([
    ...Array.from({ length: 4 }, async (_, w) => {
      for (let k = 0; Date.now() < burstEnds; k++) {
        const word = `BURST ${w} ${k}`;
        await emulator.set(`burst${w}-${String(k).padStart(4, '0')}`, { word, name: 'Burst' });
        burst.push(word);
      }
    }),
    ...hosts.map(async (host, i) => {
      const result = await host.cli('phrases', 'add', `DURING BURST ${i}`, '--name', `Replica ${i}`);
      assert.equal(result.code, 0, result.stderr);
      cliAdds.push(`DURING BURST ${i}`);
    }),
  ]);
  const burstWritten = Date.now();
  await Promise.all(
    clients.flat().map((c, k) => c.until((me) => burst.every((word) => me.words().includes(word)), 30_000, `live client ${k} has the burst`)),
  );
  t.diagnostic(`burst: ${burst.length} writes in 3 s (${Math.round(burst.length / 3)} a second); every live client had them ${Date.now() - burstWritten} ms after the last`);

  // One phrase raced from every replica's CLI at once: exactly one owner.
  const raced = await Promise.all(hosts.map((host, i) => host.cli('phrases', 'add', 'one owner only', '--name', `Racer ${i}`)));
  assert.equal(raced.filter((r) => r.code === 0).length, 1, raced.map((r) => r.stdout + r.stderr).join('\n'));
  for (const loser of raced.filter((r) => r.code !== 0)) assert.match(loser.stderr, /already taken/);

  // Firestore's own view, as the CLI lists it.
  const listed = await hosts[0].cli('phrases', 'list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  const collection = JSON.parse(listed.stdout).map((p) => p.word).sort();
  assert.equal(collection.filter((w) => w === 'ONE OWNER ONLY').length, 1);
  for (const word of cliAdds) assert.ok(collection.includes(word), `${word} acknowledged but not in Firestore`);

  // Every replica serves exactly the collection (every page walked), and every live
  // client shows it.
  for (const [i, host] of hosts.entries()) {
    await eventually(async () => (await allPhrases(host.url)).map((p) => p.word).sort(), collection, 20_000, `replica ${i} serves the collection`);
  }
  await Promise.all(
    clients.flat().map((c, k) => c.until((me) => me.words().join('\n') === collection.join('\n'), 20_000, `live client ${k} converged`)),
  );
  // And each page with one validator, though each replica numbers its versions its own
  // way: a browser or a crawler the load balancer sends to another revalidates with a 304.
  const [newest] = await allPhrases(hosts[0].url);
  for (const path of ['/words', `/words/${encodeURIComponent(newest.id)}`]) {
    const tags = await Promise.all(
      hosts.map(async (host) => {
        const response = await fetch(`${host.url}${path}`);
        assert.equal(response.status, 200, path);
        await response.arrayBuffer();
        return response.headers.get('etag');
      }),
    );
    assert.equal(new Set(tags).size, 1, `${path}: ${tags.join(' ')}`);
    for (const host of hosts) {
      const again = await fetch(`${host.url}${path}`, { headers: { 'If-None-Match': tags[0] } });
      assert.equal(again.status, 304, `${path} from ${host.url}`);
    }
  }
  // Each went from version to version: none had to start over.
  for (const [k, client] of clients.flat().entries()) assert.deepEqual(client.gaps, [], `live client ${k} was sent a gap`);

  const running = writes.map((w) => ({ ...w, ran: w.took - w.stalled })).sort((a, b) => a.ran - b.ran);
  const sorted = writes.map((w) => w.took).sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const slowest = running.at(-1);
  const stood = writes.filter((w) => w.stalled > 0);
  t.diagnostic(
    `write → every live client of the steady replicas, ${sorted.length} writes: p50 ${p50} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms; ` +
      `${stood.length} overlapped a stall of the machine (${stood.reduce((sum, w) => sum + w.stalled, 0)} ms in all); ` +
      `slowest with the stalls taken out ${slowest.ran} ms (${slowest.word})`,
  );
  // A write reaches replicas that stayed up within a bound, a restart and a pause of
  // Firestore elsewhere notwithstanding. The bound is the typical write of this run, times
  // what a straggler costs; below 2 s, timers and scheduling are the grain.
  const bound = margin(p50, 25, 2000);
  assert.ok(
    slowest.ran < bound,
    `${slowest.word} took ${slowest.took} ms to reach every live client (last: steady client ${slowest.last}), ${slowest.stalled} ms of it with the machine stalled: over ${bound} ms (p50 ${p50} ms)`,
  );
  for (const [i, host] of hosts.entries()) assert.doesNotMatch(host.log(), /panicked/, `replica ${i}`);
});
