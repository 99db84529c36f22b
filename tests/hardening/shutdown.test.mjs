// Stopping the host the way a deploy does: it stops accepting, tells every browser to
// reconnect elsewhere (close 1001), lets the requests it holds finish, and exits 0, all
// within the deadline.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allPhrases, bin, runCli, startHost } from '../support/host.mjs';
import { freePort } from '../support/free-port.mjs';
import { connectLive } from '../support/live-client.mjs';
import { connects, rawExchange, requestBytes } from '../support/raw-http.mjs';
import { poll } from '../support/poll.mjs';
import { margin } from '../support/timing.mjs';

// Enough phrases that rendering /words?check= takes a good part of a second here, so
// several such requests are still running when the signal arrives.
const PHRASES = Array.from({ length: 3000 }, (_, i) => ({ id: `p${String(i).padStart(5, '0')}`, word: `PHRASE ${i}`, name: `Minter ${i}` }));

/**
 * For each connection to the host's port, the bytes that have reached its end and that
 * it has not read (the receive queue of /proc/net/tcp, whose addresses are hex).
 */
function unreadOnHost(url) {
  const port = Number(new URL(url).port).toString(16).toUpperCase().padStart(4, '0');
  const ESTABLISHED = '01';
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => local?.endsWith(`:${port}`) && state === ESTABLISHED)
    .map(([, , , , queues]) => parseInt(queues.split(':')[1], 16));
}

test('SIGTERM: sockets get 1001, requests in flight finish with 200, nothing new is accepted, exit code 0 once they are done', async (t) => {
  // One render at a time, so that checked pages (a render each) are still queued at the signal.
  // 300 requests from one address at once: the rate limit is off (proxy.test.mjs tries it).
  // The shutdown deadline is far past what the 300 take on any machine: this test is about
  // the host finishing its work and then going at once (the next one tries the deadline).
  const starting = Date.now();
  const host = await startHost({ phrases: PHRASES, args: ['--render-timeout-ms', '30000', '--render-threads', '1', '--rate-limit-per-s', '0', '--shutdown-timeout-s', '60', '--max-connections-per-ip', '0'] });
  // Stopping undoes what starting did: twice what starting took here bounds it.
  const lateBy = margin(Date.now() - starting, 2, 3000);
  try {
    const clients = Array.from({ length: 5 }, () => connectLive(host.url));
    await Promise.all(clients.map((c) => c.until((me) => me.messages.some((m) => m.type === 'snapshot'), 5000, 'the snapshot')));

    // Each on a connection of its own, so the test knows when its request is sent.
    let sent = 0;
    const renders = Array.from({ length: 300 }, (_, i) =>
      rawExchange(host.url, [requestBytes(`/words?check=in%20flight%20${i}`)], { written: () => (sent += 1), timeoutMs: 60_000 })
        .then((response) => ({ status: response.status, html: response.text, at: Date.now() }))
        // Reported by the assertion on the status, with what went wrong, not as a stray rejection.
        .catch((error) => ({ status: error.code ?? error.message, html: '', at: Date.now() })),
    );
    // A request whose head is half sent when the signal arrives, and finished once the
    // host has stopped accepting: the signal has been taken in by then.
    let refused;
    const stoppedAccepting = new Promise((resolve) => (refused = resolve));
    const halfSent = rawExchange(host.url, ['GET /api/phrases/check?word=halfway HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'Connection: close\r\n\r\n'], {
      between: () => stoppedAccepting,
      timeoutMs: 60_000,
    }).then((response) => ({ ...response, at: Date.now() }));
    // The signal must find checks in flight: wait until every check has been sent and
    // read by the host (one it has not read yet is not in flight: it is closed at the
    // signal, as an idle connection is), and some still hold their connection, besides
    // the live sockets and the half-sent request.
    await poll(
      () => ({ sent, unread: unreadOnHost(host.url) }),
      ({ sent, unread }) => sent === renders.length && unread.every((bytes) => bytes === 0) && unread.length > clients.length + 1,
      10_000,
      'every check sent and read by the host, some still held',
    );

    const sentAt = Date.now();
    host.signal('SIGTERM');
    const exited = host.exited.then((outcome) => ({ ...outcome, at: Date.now() }));
    const refusedAfter = await poll(() => connects(host.url), (accepted) => !accepted, 5000, 'new connections refused');
    refused();
    t.diagnostic(`new connections refused ${refusedAfter} ms after the signal`);

    await Promise.all(clients.map((c) => c.until((me) => me.closed !== null, 3000, 'the close')));
    assert.deepEqual(clients.map((c) => c.closed), [1001, 1001, 1001, 1001, 1001], 'every socket is told the server is going away');

    const rendered = await Promise.all(renders);
    assert.deepEqual([...new Set(rendered.map((r) => r.status))], [200], 'every check in flight is answered');
    for (const render of rendered) {
      assert.match(render.html, /<\/html>\s*$/, 'the whole page arrives');
    }
    const afterSignal = rendered.filter((r) => r.at > sentAt).length;
    t.diagnostic(`${afterSignal} of ${rendered.length} renders finished after the signal`);
    assert.ok(afterSignal > 0, 'some renders were still running at the signal');
    const half = await halfSent;
    assert.equal(half.status, 200, 'the half-sent request is answered');
    assert.equal(JSON.parse(half.text).word, 'HALFWAY');

    const { code, signal, at: exitedAt } = await exited;
    const lastAnswer = Math.max(half.at, ...rendered.map((r) => r.at));
    t.diagnostic(`exited ${exitedAt - sentAt} ms after SIGTERM, ${exitedAt - lastAnswer} ms after the last answer`);
    assert.equal(code, 0, `exit code (signal ${signal})`);
    assert.ok(exitedAt - lastAnswer < lateBy, `exited ${exitedAt - lastAnswer} ms after the last request it held was answered, not soon after (+${lateBy} ms)`);
    assert.doesNotMatch(host.log(), /requests still running at the shutdown deadline/);
    assert.match(host.log(), /shutting down/);
    assert.match(host.log(), /stopped/);
    assert.doesNotMatch(host.log(), /panicked/);
  } finally {
    await host.stop();
  }
});

// Ctrl-C, and SIGHUP: the terminal or session that started the host closed.
for (const signal of ['SIGINT', 'SIGHUP']) {
  test(`${signal} stops the host the same way`, async () => {
    const host = await startHost({ phrases: PHRASES.slice(0, 3) });
    try {
      const client = connectLive(host.url);
      await client.until((me) => me.phrases.size === 3, 5000, 'the snapshot');
      host.signal(signal);
      await client.until((me) => me.closed !== null, 3000, 'the close');
      assert.equal(client.closed, 1001);
      assert.equal((await host.exited).code, 0);
      assert.match(host.log(), /shutting down/);
    } finally {
      await host.stop();
    }
  });
}

// Where the log goes may stop taking it: a log shipper restarting closes the pipe, a
// disk fills. The host must go on serving, and follow its store, without its log.
for (const [where, open] of [
  ['a pipe whose reader has gone', () => 'pipe'],
  ['a full disk (/dev/full)', () => openSync('/dev/full', 'w')],
]) {
  test(`a host whose log goes to ${where} keeps serving and following its store, and stops cleanly`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-test-'));
    const port = await freePort();
    const stderr = open();
    const child = spawn(bin, ['serve', '--port', String(port), '--data-dir', dataDir], {
      env: { ...process.env, NO_COLOR: '1', RUST_LOG: 'info' },
      stdio: ['ignore', 'ignore', stderr],
    });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      if (stderr === 'pipe') {
        await new Promise((resolve) => child.stderr.once('data', resolve));
        child.stderr.destroy();
      } else {
        closeSync(stderr);
      }
      const url = `http://127.0.0.1:${port}`;
      await poll(() => fetch(`${url}/healthz`).then((r) => r.status, () => 0), (status) => status === 200, 20_000, 'the host answering');
      // Each of these logs a line at info or warn, and a minted phrase is followed.
      const added = await runCli(['--data-dir', dataDir, 'phrases', 'add', 'STILL HERE', '--name', 'Rex']);
      assert.equal(added.code, 0, added.stderr);
      await poll(() => allPhrases(url).catch(() => []), (phrases) => phrases.some((p) => p.word === 'STILL HERE'), 10_000, 'the new phrase served');
      assert.equal((await fetch(`${url}/nope%ff`)).status, 400);
      assert.equal((await fetch(`${url}/words`)).status, 200);
      assert.equal(child.exitCode, null, 'still running');
      child.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 0, signal: null });
    } finally {
      child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test('a request that never completes does not keep the host past --shutdown-timeout-s', async (t) => {
  const starting = Date.now();
  const host = await startHost({ phrases: PHRASES.slice(0, 3), args: ['--shutdown-timeout-s', '1'] });
  // Stopping undoes what starting did: twice what starting took here bounds it.
  const lateBy = margin(Date.now() - starting, 2, 3000);
  try {
    const stuck = net.connect(Number(new URL(host.url).port), '127.0.0.1');
    stuck.on('error', () => {});
    await new Promise((resolve) => stuck.once('connect', resolve));
    stuck.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // The host holds it, and has read what was sent, before the signal.
    await poll(() => unreadOnHost(host.url), (unread) => unread.length === 1 && unread[0] === 0, 10_000, 'the half request read by the host');

    const sentAt = Date.now();
    host.signal('SIGTERM');
    const { code } = await host.exited;
    const took = Date.now() - sentAt;
    t.diagnostic(`exited ${took} ms after SIGTERM`);
    assert.equal(code, 0);
    assert.ok(took >= 900, `waited for the deadline (${took} ms)`);
    assert.ok(took < 1000 + lateBy, `exited ${took} ms after SIGTERM, not soon after the 1 s deadline (+${lateBy} ms)`);
    assert.match(host.log(), /requests still running at the shutdown deadline/);
    stuck.destroy();
  } finally {
    await host.stop();
  }
});
