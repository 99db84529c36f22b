// Connections as an adversary holds them: silent sockets, thousands of them, responses
// never read, pings sent to a socket that reads nothing, a big list sent to every
// socket, requests without a Host. The host closes what does nothing, keeps answering
// its probes, and its memory stays within the bound docs/operations.md states.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';
import { startHost } from '../support/host.mjs';
import { rawRequest } from '../support/raw-http.mjs';
import { rawLive } from '../support/live-client.mjs';
import { metric, waitFor } from './metrics.mjs';
import { poll, sleep } from '../support/poll.mjs';
import { margin, medianMs } from '../support/timing.mjs';

let host;

before(async () => {
  host = await startHost({ phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }], args: ['--request-timeout-s', '1'] });
});

after(async () => {
  await host?.stop();
});

/** The host's process id, found by its data folder on its command line. */
function pidOf(target) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(target.dataDir) && args.includes('serve')) return Number(entry);
    } catch {
      // A process that ended meanwhile.
    }
  }
  throw new Error(`no process serves ${target.dataDir}`);
}

const openFiles = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** Opens a TCP connection that sends `bytes` (or nothing) and then stays silent. */
function silent(url, bytes, localAddress) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: hostname, localAddress });
    socket.closedAt = null;
    socket.on('error', () => {});
    socket.on('close', () => (socket.closedAt = Date.now()));
    socket.on('data', () => {});
    socket.once('connect', () => {
      if (bytes) socket.write(bytes);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

// The client connection preface of HTTP/2 and an empty SETTINGS frame (RFC 9113, 3.4).
const http2Preface = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

test('a connection that sends nothing (HTTP/1, or HTTP/2 after its preface) is closed within the request timeout', async () => {
  // What a request costs here, on a connection of its own as each of these is.
  const roundTrip = await medianMs(() => rawRequest(host.url, '/healthz'));
  const lateBy = margin(roundTrip, 100, 2000);
  const opened = Date.now();
  const http1 = await Promise.all(Array.from({ length: 20 }, () => silent(host.url)));
  const http2 = await Promise.all(Array.from({ length: 20 }, () => silent(host.url, http2Preface)));
  const keptAlive = await silent(host.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const all = [...http1, ...http2, keptAlive];
  await poll(() => all.filter((s) => s.closedAt === null).length, (open) => open === 0, 2000 + lateBy, 'connections still open');
  const latest = Math.max(...all.map((s) => s.closedAt)) - opened;
  assert.ok(latest < 1000 + lateBy, `the last closed ${latest} ms after opening, with a 1 s request timeout (+${lateBy} ms: a round trip took ${roundTrip.toFixed(1)} ms)`);
  assert.ok((await metric(host.url, 'lastwords_connections_idle_closed_total')) > 0, 'counted as closed for idleness');
});

test('a client that pipelines requests and never reads the responses is cut off', async () => {
  const stalledBefore = (await metric(host.url, 'lastwords_connections_write_stalled_total')) ?? 0;
  const socket = await silent(host.url);
  socket.pause();
  const request = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
  socket.write(request.repeat(3000));
  await waitFor(host.url, 'lastwords_connections_write_stalled_total', (n) => n > stalledBefore, 6000);
  socket.destroy();
});

test('a request without a Host header, or with two, gets 400; HTTP/1.0 may leave it out', async () => {
  const none = await rawRequest(host.url, '/healthz', { host: null });
  assert.equal(none.status, 400);
  assert.match(none.text, /needs a Host header/);
  const two = await rawRequest(host.url, '/healthz', { headers: [['Host', 'evil.example']] });
  assert.equal(two.status, 400);
  assert.match(two.text, /one Host header; this one has 2/);
  for (const refused of [none, two]) {
    assert.match(refused.headers['content-security-policy'] ?? '', /default-src/, 'answered before the router, secured all the same');
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
  }
  const old = await rawRequest(host.url, '/healthz', { host: null, version: 'HTTP/1.0' });
  assert.deepEqual([old.status, old.text], [200, 'ok']);
  const plain = await rawRequest(host.url, '/healthz');
  assert.deepEqual([plain.status, plain.text], [200, 'ok']);
});

test('thousands of silent connections: /healthz answers throughout, well before the silent ones expire, and the descriptors come back', async () => {
  const flooded = await startHost({ args: ['--request-timeout-s', '2', '--max-connections', '300', '--max-connections-per-ip', '0', '--rate-limit-per-s', '0'] });
  const held = [];
  try {
    const pid = pidOf(flooded);
    const baseline = openFiles(pid);
    // A /healthz held back by the flood waits for silent ones to expire (2 s): the limit
    // grows with a round trip here, but stays short of that.
    const roundTrip = await medianMs(() => rawRequest(flooded.url, '/healthz'));
    const limit = Math.min(margin(roundTrip, 100, 1000), 1500);
    for (let batch = 0; batch < 20; batch++) {
      const source = `127.0.0.${2 + (batch % 4)}`;
      held.push(...(await Promise.all(Array.from({ length: 100 }, () => silent(flooded.url, null, source)))));
      const started = Date.now();
      const health = await rawRequest(flooded.url, '/healthz', { timeoutMs: limit });
      assert.deepEqual([health.status, health.text], [200, 'ok'], `/healthz with ${held.length} silent connections`);
      assert.ok(Date.now() - started < limit, `/healthz took ${Date.now() - started} ms with ${held.length} silent connections, over ${limit} ms (a round trip took ${roundTrip.toFixed(1)} ms)`);
    }
    const busy = await rawRequest(flooded.url, '/words');
    assert.equal(busy.status, 503, 'past the budget a page is refused at once');
    assert.ok(Number(busy.headers['retry-after']) > 0, JSON.stringify(busy.headers) + busy.text);
    const ready = await rawRequest(flooded.url, '/readyz');
    assert.deepEqual([ready.status, ready.text], [200, 'ready'], 'and /readyz answered');
    for (const answer of [busy, ready]) {
      assert.equal(answer.headers['x-content-type-options'], 'nosniff', 'the security headers past the budget too');
      assert.match(answer.headers['content-security-policy'] ?? '', /default-src/);
    }
    assert.ok((await metric(flooded.url, 'lastwords_connections_refused_total')) > 0);
    // The attacker still holds its end of every connection; the host has closed its own.
    await poll(() => openFiles(pid), (n) => n < baseline + 20, 6000, 'open descriptors of the host');
    const again = await fetch(`${flooded.url}/words`);
    assert.equal(again.status, 200, 'a page is served again');
    assert.match(await again.text(), /Last Words minted/, 'the words page, not an error page');
  } finally {
    for (const socket of held) socket.destroy();
    await flooded.stop();
  }
});

test('one client holding its share of connections cannot take the rest: its next is closed, everyone else is served', async () => {
  const shared = await startHost({ args: ['--max-connections', '40', '--max-connections-per-ip', '10', '--request-timeout-s', '30', '--rate-limit-per-s', '0'] });
  const held = [];
  try {
    // A client that holds connections open and asks /healthz on each now and then, as the
    // probes are answered past the budget and not rate limited.
    for (let i = 0; i < 10; i++) held.push(await silent(shared.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '127.0.0.2'));
    const extra = await silent(shared.url, null, '127.0.0.2');
    await poll(() => extra.closedAt, (closed) => closed !== null, 3000, 'the connection past the client\'s share to be closed');
    // Everyone else: a page and the probes, from other addresses.
    for (const source of ['127.0.0.1', '127.0.0.3']) {
      const page = await rawRequest(shared.url, '/words', { localAddress: source });
      assert.equal(page.status, 200, `a page for ${source}`);
    }
    assert.ok((await metric(shared.url, 'lastwords_connections_refused_total')) >= 1);
    // Its connections given back, the client is served again.
    for (const socket of held.splice(0)) socket.destroy();
    await poll(async () => (await rawRequest(shared.url, '/words', { localAddress: '127.0.0.2' }).catch(() => null))?.status, (status) => status === 200, 5000, 'the client served again');
  } finally {
    for (const socket of held) socket.destroy();
    await shared.stop();
  }
});

test('out of descriptors: the host says so once, not at every retry, serves again when some close, and says that too', async () => {
  const starved = await startHost({ args: ['--request-timeout-s', '5', '--rate-limit-per-s', '0'] });
  const held = [];
  const limit = (n) => execFileSync('prlimit', ['--pid', String(starved.pid), `--nofile=${n}:`]);
  try {
    // The open-file limit lowered under a running host to a few more than it holds: the
    // connections past it wait in the kernel's backlog while every accept fails.
    limit(openFiles(starved.pid) + 8);
    for (let i = 0; i < 40; i++) held.push(await silent(starved.url, null));
    await sleep(3000);
    const told = starved.log().split('\n').filter((line) => line.includes('accept'));
    assert.equal(told.length, 1, `one line for three seconds of failed accepts (one retry each 50 ms):\n${told.slice(0, 5).join('\n')}`);
    assert.match(told[0], /accept failed.*ulimit -n/, 'and it says what to do');
    for (const socket of held.splice(0)) socket.destroy();
    limit(4096);
    let health;
    await poll(async () => (health = await rawRequest(starved.url, '/healthz').catch(() => null))?.status, (status) => status === 200, 10_000, '/healthz once descriptors are free');
    assert.equal(health.text, 'ok');
    await poll(() => starved.log(), (log) => /accepting again/.test(log), 5000, 'the log saying the host accepts again');
    assert.ok((await metric(starved.url, 'lastwords_accept_failures_total')) > 10, 'the failures are counted');
  } finally {
    for (const socket of held) socket.destroy();
    await starved.stop();
  }
});

/** A masked client frame (RFC 6455, 5.3) of `opcode` carrying `payload`. */
function clientFrame(opcode, payload) {
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, masked]);
}

test('sockets that send pings and never read cost the host little, and are closed', async (t) => {
  const pid = pidOf(host);
  // The host closes a peer that sends this many frames at once, and one that takes
  // nothing at its send timeout (10 s, server/src/live/websocket.rs) at the latest; then
  // it waits up to 1 s for its close frame to be read. Past that, what is late is this
  // machine, by a margin grown from a round trip here.
  const roundTrip = await medianMs(() => rawRequest(host.url, '/healthz'));
  const closedWithin = 10_000 + 1000 + margin(roundTrip, 100, 2000);
  const before = rssMiB(pid);
  const socketsBefore = await metric(host.url, 'lastwords_websocket_connections');
  const ping = clientFrame(0x9, Buffer.alloc(125, 7));
  const burst = Buffer.concat(Array(8000).fill(ping)); // 1 MB of pings
  const peers = await Promise.all(Array.from({ length: 32 }, () => rawLive(host.url)));
  t.after(() => peers.forEach((peer) => peer.socket.destroy()));
  await waitFor(host.url, 'lastwords_websocket_connections', (n) => n === socketsBefore + 32, 5000);
  for (const peer of peers) {
    peer.socket.pause();
    peer.socket.write(burst);
  }
  // The host's memory, looked at all the while it deals with them, until it has closed
  // the last (a peer that reads nothing may not notice).
  let peak = before;
  const took = await poll(async () => {
    peak = Math.max(peak, rssMiB(pid));
    return (await metric(host.url, 'lastwords_websocket_connections')) - socketsBefore;
  }, (open) => open === 0, closedWithin, 'peers that never read still open on the host');
  t.diagnostic(`32 ping-flooding sockets: RSS ${before.toFixed(1)} → ${peak.toFixed(1)} MiB at the peak; all closed after ${took} ms`);
  // 32 sockets: the bound per socket (docs/operations.md) is well under 64 KiB.
  assert.ok(peak - before < 24, `the host grew ${(peak - before).toFixed(1)} MiB (${before.toFixed(0)} → ${peak.toFixed(0)})`);
  const health = await fetch(`${host.url}/healthz`);
  assert.deepEqual([health.status, await health.text()], [200, 'ok']);
});

test('sockets joining a big list each get one page, and cost the host little', async (t) => {
  // 5,500 phrases with the longest names the content rules allow (40 characters, 320
  // bytes): a snapshot of about 2 MB.
  const longestName = '\u{1F44D}\u{1F3FD}'.repeat(40);
  const phrases = Array.from({ length: 5_500 }, (_, i) => ({ id: `p${String(i).padStart(4, '0')}`, word: `PHRASE ${i}`, name: longestName }));
  // Hundreds of clients from one address: the per-address caps and the rate limit are off.
  const big = await startHost({ phrases, args: ['--max-sockets-per-ip', '0', '--max-connections-per-ip', '0', '--rate-limit-per-s', '0'] });
  const sockets = [];
  try {
    const pid = pidOf(big);
    // The first client has the list encoded before the baseline is taken.
    const url = `${big.url.replace(/^http/, 'ws')}/api/phrases/live`;
    const receive = () =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url, { headers: { Origin: big.url } });
        sockets.push(socket);
        socket.once('message', (data) => resolve(data.length));
        socket.once('error', reject);
      });
    const size = await receive();
    // 48 phrases of the list's 5,500: the whole list would be 2 MB.
    assert.ok(size < 20_000, `the snapshot is ${size} bytes`);
    const before = rssMiB(pid);
    for (let batch = 0; batch < 5; batch++) await Promise.all(Array.from({ length: 20 }, receive));
    // Each client has its snapshot; the host is done once it has counted every send.
    await waitFor(big.url, 'lastwords_websocket_messages_sent_total', (sent) => sent >= 101, 10_000);
    const grown = rssMiB(pid) - before;
    t.diagnostic(`100 sockets sent a ${size}-byte snapshot each: RSS grew ${grown.toFixed(1)} MiB`);
    assert.ok(grown < 40, `100 sockets that each got ${(size / 1e6).toFixed(1)} MB grew the host by ${grown.toFixed(1)} MiB`);
  } finally {
    for (const socket of sockets) socket.terminate();
    await big.stop();
  }
});

test('the host never panicked', () => {
  assert.doesNotMatch(host.log(), /panicked/);
});
