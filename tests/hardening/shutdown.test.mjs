// Stopping the host the way a deploy does: it stops accepting, tells every browser to
// reconnect elsewhere (close 1001), lets the requests it holds finish, and exits 0, all
// within the deadline.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startHost } from '../support/host.mjs';
import { connectLive } from '../support/live-client.mjs';
import { connects, rawExchange } from '../support/raw-http.mjs';
import { poll, sleep } from '../support/poll.mjs';
import { waitFor } from './metrics.mjs';
import { margin } from '../support/timing.mjs';

// Enough phrases that rendering /words?check= takes a good part of a second here, so
// several such requests are still running when the signal arrives.
const PHRASES = Array.from({ length: 3000 }, (_, i) => ({ id: `p${String(i).padStart(5, '0')}`, word: `PHRASE ${i}`, name: `Minter ${i}` }));

test('SIGTERM: sockets get 1001, requests in flight finish with 200, nothing new is accepted, exit code 0', async (t) => {
  // One render at a time, so that checked pages (a render each) are still queued at the signal.
  // 300 requests from one address at once: the rate limit is off (proxy.test.mjs tries it).
  const host = await startHost({ phrases: PHRASES, args: ['--render-timeout-ms', '30000', '--render-threads', '1', '--rate-limit-per-s', '0', '--shutdown-timeout-s', '10'] });
  try {
    const clients = Array.from({ length: 5 }, () => connectLive(host.url));
    await Promise.all(clients.map((c) => c.until((me) => me.messages.some((m) => m.type === 'snapshot'), 5000, 'the snapshot')));

    const renders = Array.from({ length: 300 }, (_, i) =>
      fetch(`${host.url}/words?check=in%20flight%20${i}`).then(async (response) => ({ status: response.status, html: await response.text(), at: Date.now() })),
    );
    // A request whose head is half sent when the signal arrives and finished after it.
    let signalled;
    const signalSent = new Promise((resolve) => (signalled = resolve));
    const halfSent = rawExchange(host.url, ['GET /api/phrases/check?word=halfway HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'Connection: close\r\n\r\n'], {
      between: async () => {
        await signalSent;
        await sleep(200);
      },
    });
    // The signal must find the checks in flight: wait until the host holds their connections.
    await waitFor(host.url, 'lastwords_connections', (open) => open >= 300, 10_000);

    const sentAt = Date.now();
    host.signal('SIGTERM');
    signalled();
    const refusedAfter = await poll(() => connects(host.url), (accepted) => !accepted, 5000, 'new connections refused');
    t.diagnostic(`new connections refused ${refusedAfter} ms after the signal`);

    await Promise.all(clients.map((c) => c.until((me) => me.closed !== null, 3000, 'the close')));
    assert.deepEqual(clients.map((c) => c.closed), [1001, 1001, 1001, 1001, 1001], 'every socket is told the server is going away');

    const rendered = await Promise.all(renders);
    for (const render of rendered) {
      assert.equal(render.status, 200);
      assert.match(render.html, /<\/html>\s*$/, 'the whole page arrives');
    }
    const afterSignal = rendered.filter((r) => r.at > sentAt).length;
    t.diagnostic(`${afterSignal} of ${rendered.length} renders finished after the signal`);
    assert.ok(afterSignal > 0, 'some renders were still running at the signal');
    const half = await halfSent;
    assert.equal(half.status, 200, 'the half-sent request is answered');
    assert.equal(JSON.parse(half.text).word, 'HALFWAY');

    const { code, signal } = await host.exited;
    const took = Date.now() - sentAt;
    t.diagnostic(`exited ${took} ms after SIGTERM`);
    assert.equal(code, 0, `exit code (signal ${signal})`);
    assert.ok(took < 10_000, `exited within the 10 s deadline (${took} ms)`);
    assert.match(host.log(), /shutting down/);
    assert.match(host.log(), /stopped/);
    assert.doesNotMatch(host.log(), /panicked/);
  } finally {
    await host.stop();
  }
});

test('SIGINT stops the host the same way', async () => {
  const host = await startHost({ phrases: PHRASES.slice(0, 3) });
  try {
    const client = connectLive(host.url);
    await client.until((me) => me.phrases.size === 3, 5000, 'the snapshot');
    host.signal('SIGINT');
    await client.until((me) => me.closed !== null, 3000, 'the close');
    assert.equal(client.closed, 1001);
    assert.equal((await host.exited).code, 0);
  } finally {
    await host.stop();
  }
});

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
    await sleep(200);

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
