// Abuse of the live feed: foreign pages, huge frames, floods, peers that stop reading,
// too many sockets. Whatever one client does, every other one keeps getting updates.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost } from '../support/host.mjs';
import { connectLive, rawLive, tryUpgrade } from '../support/live-client.mjs';
import { rawExchange, rawRequest, requestBytes } from '../support/raw-http.mjs';
import { metric, waitFor } from './metrics.mjs';
import { poll } from '../support/poll.mjs';
import { margin, medianMs } from '../support/timing.mjs';

let host;
// Opened first and checked last, so the minute they need overlaps the other tests: one
// peer that never answers a ping, and one that answers pings and says nothing else.
let silent;
let quiet;

before(async () => {
  host = await startHost({ phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }] });
  silent = await rawLive(host.url);
  silent.openedAt = Date.now();
  quiet = connectLive(host.url);
  await quiet.opened;
});

after(async () => {
  await host?.stop();
});

async function currentVersion(url) {
  return (await (await fetch(`${url}/api/phrases`)).json()).version;
}

/** Bytes the kernel holds to send on the host's side of a connection (/proc/net/tcp). */
function sendQueue(hostPort, clientPort) {
  const hex = (port) => Number(port).toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(`:${hex(hostPort)}`) && fields[2]?.endsWith(`:${hex(clientPort)}`)) {
      return parseInt(fields[4].split(':')[0], 16);
    }
  }
  return 0;
}

/** Adds `word` through the CLI (a real write to the store's file). */
async function add(target, word) {
  const added = await target.cli('phrases', 'add', word, '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
}

test('a page of another origin, or no Origin at all, is refused with 403 before the upgrade', async () => {
  const { port } = new URL(host.url);
  const foreign = [
    'http://evil.example',
    'null',
    `http://127.0.0.1:${Number(port) + 1}`,
    `https://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `${host.url}/`,
    `${host.url}.evil.example`,
    null,
  ];
  for (const origin of foreign) {
    const answer = await tryUpgrade(host.url, { origin });
    assert.equal(answer.status, 403, `Origin ${origin}`);
    assert.match(answer.body, /origin may not open the live feed/);
  }
  assert.equal((await tryUpgrade(host.url)).status, 101, 'the page\'s own origin gets in');
});

test('an opening handshake that is not one is refused with the reason and never upgraded', async () => {
  const own = host.url;
  const upgrade = (overrides = {}) => {
    const { method = 'GET', version = 'HTTP/1.1', key = 'dGhlIHNhbXBsZSBub25jZQ==', origins = [own], query = '', extra = [], body = '', spoken = ['13'] } = overrides;
    const head = requestBytes(`/api/phrases/live${query}`, {
      method,
      version,
      headers: [
        ['Connection', 'Upgrade'],
        ['Upgrade', 'websocket'],
        ...spoken.map((spoken) => ['Sec-WebSocket-Version', spoken]),
        ['Sec-WebSocket-Key', key],
        ...origins.map((origin) => ['Origin', origin]),
        ...extra,
      ],
    });
    return rawExchange(host.url, [Buffer.concat([head, Buffer.from(body, 'latin1')])]);
  };
  // A frame (a masked text "hi") sent as the handshake's body: were the socket opened,
  // the host would read it as the peer's first frame, and a proxy that did not see the
  // upgrade as the request's body: the two would disagree on where requests begin.
  const frame = Buffer.from([0x81, 0x82, 1, 2, 3, 4, 0x68 ^ 1, 0x69 ^ 2]).toString('latin1');
  for (const [what, overrides, status, reason] of [
    ['HEAD', { method: 'HEAD' }, 400, null],
    ['HTTP/1.0', { version: 'HTTP/1.0' }, 400, /HTTP\/1\.1 GET/],
    ['a key that is not base64', { key: '!!!not base64!!!' }, 400, /16 bytes in base64/],
    ['a key of one byte', { key: 'YQ==' }, 400, /16 bytes in base64/],
    ['an empty key', { key: '' }, 400, /Sec-WebSocket-Key/],
    ['two keys', { extra: [['Sec-WebSocket-Key', 'AAAAAAAAAAAAAAAAAAAAAA==']] }, 400, /once/],
    ['two versions', { extra: [['Sec-WebSocket-Version', '8']] }, 400, /once|version 13/],
    ['its own origin, then a foreign one', { origins: [own, 'http://evil.example'] }, 403, /origin may not/],
    ['since that is not a number', { query: '?since=abc' }, 400, /since is the version/],
    ['since below zero', { query: '?since=-1' }, 400, /since is the version/],
    ['a bad since from a foreign page', { query: '?since=abc', origins: ['http://evil.example'] }, 403, /origin may not/],
    ['a body', { extra: [['Content-Length', '8']], body: frame }, 400, /no body/],
    ['a chunked body', { extra: [['Transfer-Encoding', 'chunked']], body: `8\r\n${frame}\r\n0\r\n\r\n` }, 400, /no body/],
  ]) {
    const answer = await upgrade(overrides);
    assert.equal(answer.status, status, what);
    if (reason) assert.match(answer.text, reason, what);
    assert.notEqual(answer.headers.upgrade, 'websocket', what);
  }
  // A client speaking another version is told which one is spoken (RFC 6455, 4.4), so it
  // can ask again in it.
  for (const spoken of [['8'], [], ['8', '13']]) {
    const answer = await upgrade({ spoken });
    assert.equal(answer.status, 426, `Sec-WebSocket-Version: ${spoken}`);
    assert.equal(answer.headers['sec-websocket-version'], '13');
    assert.equal(answer.headers.upgrade, 'websocket', 'the 426 names the protocol it asks for');
    assert.match(answer.text, /version 13/);
  }
  // A HEAD gets the head of what a GET with its headers gets (RFC 9110, 9.3.2).
  const [get, head] = [await rawRequest(own, '/api/phrases/live'), await rawRequest(own, '/api/phrases/live', { method: 'HEAD' })];
  assert.equal(head.status, get.status);
  assert.equal(head.headers['content-length'], get.headers['content-length'], 'HEAD says the length a GET gets');
  assert.equal(head.body.length, 0);
  for (const length of ['0', '00']) {
    assert.equal((await tryUpgrade(host.url, { headers: { 'Content-Length': length } })).status, 101, `Content-Length: ${length} is no body`);
  }
  const right = await rawLive(host.url, { since: 3 });
  right.socket.destroy();
  assert.equal((await tryUpgrade(host.url)).status, 101, 'the handshake done right still opens');
});

test('a frame over 4 KiB closes the socket with 1009; a 4 KiB one does not', async () => {
  const fine = connectLive(host.url);
  await fine.opened;
  fine.socket.send(Buffer.alloc(4096, 'a'));
  // The host reads frames in order: its pong to a later ping says it has read the 4 KiB one.
  let ponged = false;
  fine.socket.once('pong', () => (ponged = true));
  fine.socket.ping();
  await poll(() => ponged || fine.closed !== null, Boolean, 3000, 'a pong to the ping sent after the 4 KiB frame');
  assert.equal(fine.closed, null, 'a 4 KiB frame is allowed');
  fine.close();

  const big = connectLive(host.url);
  await big.opened;
  big.socket.send(Buffer.alloc(64 * 1024, 'a'));
  await big.until((c) => c.closed !== null, 3000, 'the close');
  assert.equal(big.closed, 1009);

  const pieces = connectLive(host.url);
  await pieces.opened;
  for (let i = 0; i < 3; i++) pieces.socket.send(Buffer.alloc(2048, 'a'), { fin: i === 2 });
  await pieces.until((c) => c.closed !== null, 3000, 'the close');
  assert.equal(pieces.closed, 1009, 'a 6 KiB message in 2 KiB fragments is too big as well');
  const health = await fetch(`${host.url}/healthz`);
  assert.deepEqual([health.status, await health.text()], [200, 'ok']);
});

test('a close frame of one byte, with a code no peer sends, or with a reason not in UTF-8, and text not in UTF-8, are answered as the protocol says', async () => {
  // Masked with a zero key, so the payload goes as written.
  const frame = (opcode, payload, head = [0x80 | opcode, 0x80 | payload.length]) => Buffer.concat([Buffer.from(head), Buffer.alloc(4), payload]);
  const close = (code, reason = Buffer.alloc(0)) => {
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    return frame(0x8, Buffer.concat([payload, reason]));
  };
  const huge = Buffer.alloc(8);
  huge.writeBigUInt64BE(1n << 63n);
  for (const [what, bytes, expected] of [
    ['a close of one byte', frame(0x8, Buffer.from([3])), 1002],
    ['code 999', close(999), 1002],
    ['code 1005, which is never sent', close(1005), 1002],
    ['code 5000', close(5000), 1002],
    ['a reason that is not UTF-8', close(1000, Buffer.from([0xff, 0xfe])), 1007],
    ['a length with its top bit set', Buffer.concat([Buffer.from([0x82, 0x80 | 127]), huge, Buffer.alloc(4)]), 1002],
    ['code 1000, "bye"', close(1000, Buffer.from('bye')), 1000],
    ['code 4000', close(4000), 1000],
    ['a text frame that is not UTF-8', frame(0x1, Buffer.from([0xff, 0xfe, 0xfd])), 1007],
    ['a text message cut inside a character', Buffer.concat([frame(0x1, Buffer.from([0xf0, 0x9f]), [0x01, 0x82]), frame(0x0, Buffer.from('x'))]), 1007],
  ]) {
    const client = await rawLive(host.url);
    client.socket.write(bytes);
    await client.closed;
    const answered = client.frames.find((f) => f.kind === 'close');
    assert.equal(answered?.code, expected, what);
  }
});

test('a flood of 10,000 frames from one client holds up neither the others nor the host', async () => {
  // What /healthz takes here with no flood: held up by one, it would take far more.
  const healthz = async () => {
    const response = await fetch(`${host.url}/healthz`);
    return [response.status, await response.text()];
  };
  const roundTrip = await medianMs(healthz);
  const limit = margin(roundTrip, 100, 1000);
  const other = connectLive(host.url);
  await other.until((c) => c.phrases.size > 0, 3000, 'the snapshot');
  const flooder = connectLive(host.url);
  await flooder.opened;
  const frame = Buffer.alloc(100, 'x');
  for (let i = 0; i < 10_000; i++) flooder.socket.send(frame);

  const started = Date.now();
  assert.deepEqual(await healthz(), [200, 'ok']);
  const took = Date.now() - started;
  assert.ok(took < limit, `/healthz answered in ${took} ms during the flood, over ${limit} ms (${roundTrip.toFixed(1)} ms without it)`);
  await add(host, 'flood survivor');
  await other.until((c) => c.words().includes('FLOOD SURVIVOR'), 3000, 'the update during the flood');
  flooder.close();
  other.close();
});

test('a client that never reads is cut off after the send timeout, while 1,000 others get every update at once', async (t) => {
  // 34 imports of 500 phrases (the most one change message carries), each with the
  // longest name the content rules allow (40 characters, 320 bytes): every import makes
  // a change message of about 195 KB. A peer that comes back from before them is owed
  // about 6.6 MB, more than the sockets'
  // buffers hold, so the server's write to it really blocks once it stops reading. Only
  // that peer is sent those messages.
  const longestName = '\u{1F44D}\u{1F3FD}'.repeat(40);
  // A thousand clients from one address: the per-address caps and the rate limit are off.
  const crowded = await startHost({ phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }], args: ['--max-sockets-per-ip', '0', '--max-connections-per-ip', '0', '--rate-limit-per-s', '0'] });
  try {
    const before = await currentVersion(crowded.url);
    // Each import waits until a live client has it, so each is a change message of
    // its own (the feed sends one message for changes that come faster than it).
    const pacer = connectLive(crowded.url, before);
    await pacer.opened;
    for (let round = 0; round < 34; round++) {
      const file = join(crowded.dataDir, `round-${round}.json`);
      writeFileSync(file, JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ word: `R${round} N${i}`, name: longestName }))));
      const importedAt = Date.now();
      const imported = await crowded.cli('phrases', 'import', file);
      assert.equal(imported.code, 0, imported.stdout + imported.stderr);
      // Setting the stage, not what is measured: three suites share the machine here.
      await pacer.until((c) => c.words().includes(`R${round} N499`), 30_000, `import ${round}`).catch(async (error) => {
        const served = await fetch(`${crowded.url}/api/phrases?limit=1`).then(async (r) => (await r.json()).phrases[0]?.word, (e) => `nothing (${e.cause?.code ?? e.message})`);
        const ended = await Promise.race([crowded.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 1000))]);
        throw new Error(`import ${round} not at the client; the host serves ${served} first; it ended: ${JSON.stringify(ended)}; its log:\n${crowded.log().split('\n').slice(-6).join('\n')}`, { cause: error });
      });
      if (Date.now() - importedAt > 3000) t.diagnostic(`import ${round} reached the client after ${Date.now() - importedAt} ms`);
    }
    pacer.close();
    const owed = connectLive(crowded.url, before);
    const latest = await currentVersion(crowded.url);
    await owed.until((c) => c.version === latest, 10_000, 'the catch-up');
    assert.ok(owed.messages.every((m) => m.type === 'changes'), 'the catch-up is the changes missed');
    const owedBytes = owed.messages.reduce((sum, m) => sum + Buffer.byteLength(JSON.stringify(m)), 0);
    assert.ok(owedBytes > 5_000_000, `a peer from before the rewrites is owed ${owedBytes} bytes`);
    owed.close();

    // What a write takes to reach one client here: the CLI, the host's look at the store
    // and one send. A broadcast held up by the hung peer would wait for its 10 s send
    // timeout, so the bound for all 1,000 grows with this but stays below that.
    const one = connectLive(crowded.url);
    await one.opened;
    let n = 0;
    const toOne = await medianMs(async () => {
      const word = `ALONE ${n++}`;
      await add(crowded, word);
      await one.until((me) => me.words().includes(word), 10_000, `${word} at one client`);
    }, 3);
    one.close();
    const bound = Math.min(margin(toOne, 10, 4000), 9000);

    const version = await currentVersion(crowded.url);
    const clients = [];
    for (let batch = 0; batch < 10; batch++) {
      const opening = Array.from({ length: 100 }, () => connectLive(crowded.url, version));
      await Promise.all(opening.map((c) => c.opened));
      clients.push(...opening);
    }
    const hung = await rawLive(crowded.url, { since: before });
    hung.socket.pause();
    const hungAt = Date.now();
    await waitFor(crowded.url, 'lastwords_websocket_connections', (n) => n === 1001, 5000);
    // What the kernel holds for it meanwhile is bounded: its send queue fills to the
    // socket's buffer (256 KiB, which Linux doubles) and no further than one write past
    // it (a write is taken while the queue is under the buffer, filled to a segment of up
    // to 64 KiB on loopback: 528,384 bytes were seen once).
    const queued = () => sendQueue(new URL(crowded.url).port, hung.socket.localPort);
    await poll(queued, (bytes) => bytes > 100_000, 5000, "the hung peer's send queue filling");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(queued() <= 512 * 1024 + 64 * 1024, `${queued()} bytes queued in the kernel for a peer that reads nothing`);

    for (const word of ['FIRST', 'SECOND', 'THIRD']) {
      const sent = Date.now();
      await add(crowded, word);
      await Promise.all(clients.map((c) => c.until((me) => me.words().includes(word), bound, `${word} at every client`)));
      const took = Date.now() - sent;
      t.diagnostic(`${word} reached all 1,000 clients in ${took} ms (one client: ${toOne.toFixed(0)} ms)`);
      assert.ok(took < bound, `${word} reached all 1,000 clients in ${took} ms, over ${bound} ms (one client: ${toOne.toFixed(0)} ms)`);
      if (word === 'FIRST') {
        assert.equal(await metric(crowded.url, 'lastwords_websocket_connections'), 1001, 'while the hung peer was still connected');
      }
    }
    // They joined current, so what they hold is exactly the three changes since.
    assert.ok(clients.every((c) => c.closed === null && c.words().join() === 'FIRST,SECOND,THIRD'), 'every reading client has every update');

    // The hung peer goes when a write has waited 10 s, without what it was owed.
    await waitFor(crowded.url, 'lastwords_websocket_connections', (n) => n === 1000, 25_000);
    const cutAfter = Date.now() - hungAt;
    t.diagnostic(`the hung peer was cut ${cutAfter} ms after it stopped reading`);
    assert.ok(cutAfter >= 9500, `cut after ${cutAfter} ms, not before the send timeout`);
    // With a reset: closed gracefully, the kernel kept what it never read (some 400 KB) in
    // an orphan socket for minutes after the host let go of it, where no cap counts it.
    await poll(queued, (bytes) => bytes === 0, 3000, "the kernel letting go of the hung peer's queue");
    hung.socket.resume();
    await hung.closed;
    assert.ok(hung.bytes < owedBytes, `the hung peer got ${hung.bytes} of ${owedBytes} bytes`);
    for (const c of clients) c.close();
  } finally {
    await crowded.stop();
  }
});

test('past the per-address cap the upgrade gets 429 with Retry-After (the client is the cause); past the global cap 503; a closed socket frees its place', async () => {
  const origin = 'https://dinos.example';
  const capped = await startHost({
    phrases: [{ id: 'a1', word: 'HELLO', name: 'Rex' }],
    args: ['--max-sockets', '5', '--max-sockets-per-ip', '3', '--allowed-origins', `${origin},https://www.dinos.example`],
  });
  try {
    const open = (localAddress) => tryUpgrade(capped.url, { origin, localAddress, keep: true });
    assert.equal((await tryUpgrade(capped.url, { origin: 'http://evil.example' })).status, 403, 'only the allowed origins');
    assert.equal((await tryUpgrade(capped.url, { origin: 'https://www.dinos.example' })).status, 101, 'every allowed origin');
    await waitFor(capped.url, 'lastwords_websocket_connections', (n) => n === 0, 3000);

    const first = [];
    for (let i = 0; i < 3; i++) {
      const answer = await open('127.0.0.1');
      assert.equal(answer.status, 101, `socket ${i + 1} from 127.0.0.1`);
      first.push(answer.socket);
    }
    const fourth = await open('127.0.0.1');
    assert.equal(fourth.status, 429, 'the 4th socket from one address');
    assert.ok(Number(fourth.headers['retry-after']) > 0, 'with Retry-After');
    assert.match(fourth.body, /too many live connections from this address/);
    assert.doesNotMatch(capped.log(), /WARN[^\n]*status=429/, 'not a failure of the host: no warning');

    const second = [];
    for (let i = 0; i < 2; i++) {
      const answer = await open('127.0.0.2');
      assert.equal(answer.status, 101, `socket ${i + 1} from 127.0.0.2: another address has its own allowance`);
      second.push(answer.socket);
    }
    const sixth = await open('127.0.0.3');
    assert.equal(sixth.status, 503, 'the 6th socket in all, from a fresh address');
    assert.ok(Number(sixth.headers['retry-after']) > 0);
    assert.equal(await metric(capped.url, 'lastwords_websocket_refused_total'), 2);
    // A crowd refused is a run told once (and once a minute while it lasts), not a line each.
    for (let i = 0; i < 30; i++) assert.equal((await open('127.0.0.4')).status, 503);
    assert.equal(capped.log().match(/refusing work for want of room: every live connection is taken/g)?.length, 1, capped.log());
    assert.doesNotMatch(capped.log(), /request failed/);
    assert.equal(await metric(capped.url, 'lastwords_websocket_refused_total'), 32);

    first.shift().close();
    await waitFor(capped.url, 'lastwords_websocket_connections', (n) => n === 4, 3000);
    assert.equal((await open('127.0.0.3')).status, 101, 'the freed place is taken by another address');
    first.shift().close();
    await waitFor(capped.url, 'lastwords_websocket_connections', (n) => n === 4, 3000);
    assert.equal((await open('127.0.0.1')).status, 101, 'and the address that closed one may open one again');
    for (const socket of [...first, ...second]) socket.close();
  } finally {
    await capped.stop();
  }
});

test('a new client of a long list gets the newest page and the count, not the list; a change is a message of its own size', async () => {
  // 4,000 phrases of ordinary size: about 330 KB as a whole list.
  const phrases = Array.from({ length: 4000 }, (_, i) => ({ id: `id${String(i).padStart(18, '0')}`, word: `LAST WORDS NO ${i}`, name: `Dino collector ${i}` }));
  const big = await startHost({ phrases });
  try {
    const client = connectLive(big.url);
    await client.until((c) => c.messages.length > 0 || c.closed !== null, 5000, 'the snapshot or a close');
    assert.equal(client.closed, null, `closed with ${client.closed}`);
    const [snapshot] = client.messages;
    assert.equal(snapshot.type, 'snapshot');
    assert.equal(snapshot.count, phrases.length);
    assert.equal(snapshot.phrases.length, 48);
    assert.equal(snapshot.phrases[0].word, 'LAST WORDS NO 3999', 'newest first');
    assert.equal(typeof snapshot.next, 'string');
    const added = await big.cli('phrases', 'add', 'one more', '--name', 'Late');
    assert.equal(added.code, 0, added.stderr);
    await client.until((c) => c.messages.length > 1, 5000, 'the change');
    const change = client.messages[1];
    assert.equal(change.count, phrases.length + 1);
    assert.deepEqual(change.changes.map((c) => [c.op, c.phrase?.word]), [['upsert', 'ONE MORE']]);
    assert.ok(JSON.stringify(change).length < 300, JSON.stringify(change));
    client.close();
  } finally {
    await big.stop();
  }
});

test('the server pings every 20 s and closes a peer silent for 45 s; a peer that answers pings stays', async (t) => {
  let timer;
  await Promise.race([silent.closed, new Promise((resolve) => (timer = setTimeout(resolve, 75_000 - (Date.now() - silent.openedAt))))]);
  clearTimeout(timer);
  const pings = silent.frames.filter((f) => f.kind === 'ping').map((f) => f.at - silent.openedAt);
  const close = silent.frames.find((f) => f.kind === 'close');
  t.diagnostic(`pings at ${pings.join(', ')} ms; closed with ${close?.code} at ${close ? close.at - silent.openedAt : '-'} ms`);
  assert.ok(pings.length >= 2, `pinged twice before giving up (${pings.length})`);
  assert.ok(Math.abs(pings[0] - 20_000) < 3000, `the first ping ${pings[0]} ms after opening`);
  // Each with a message a page sees (a browser answers pings itself): a page that hears
  // none for a while takes its connection for dead, though the list is quiet.
  const alive = silent.frames.filter((f) => f.kind === 'text' && String(f.payload) === '{"type":"alive"}').map((f) => f.at - silent.openedAt);
  assert.equal(alive.length, pings.length, `an alive message with each ping: ${alive.join(', ')} ms`);
  alive.forEach((at, i) => assert.ok(Math.abs(at - pings[i]) < 100, `alive at ${at} ms, its ping at ${pings[i]} ms`));
  assert.equal(close?.code, 1008, 'closed for silence with a policy close');
  const closedAt = close.at - silent.openedAt;
  // At 45 s, not at the first ping after it (60 s): a dead peer holds its place no longer.
  // Counted from the host's start of the session, a moment before the client saw it open.
  assert.ok(closedAt > 44_000 && closedAt < 52_000, `closed ${closedAt} ms after opening`);
  assert.equal(quiet.closed, null, 'the peer that answered pings is still open');
  quiet.close();
});

test('the host never panicked', () => {
  assert.doesNotMatch(host.log(), /panicked/);
});
