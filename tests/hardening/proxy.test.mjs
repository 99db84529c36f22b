// Behind a load balancer: the client's address comes from the forwarded headers of a
// trusted proxy only, per-client caps and rate limits hold per client there, and a
// deploy's SIGTERM turns /readyz to 503 while the host still serves (the drain).
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { startHost } from '../support/host.mjs';
import { connects } from '../support/raw-http.mjs';
import { connectLive, tryUpgrade } from '../support/live-client.mjs';
import { poll, sleep } from '../support/poll.mjs';
import { margin } from '../support/timing.mjs';

const xff = (value) => ({ 'X-Forwarded-For': value });

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

/** Opens `n` live sockets with `headers`; resolves to their upgrade statuses (sockets kept open). */
async function upgrades(url, headers, n, options = {}) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await tryUpgrade(url, { keep: true, headers, ...options }));
  return results;
}

function closeAll(results) {
  for (const r of results) r.socket?.close();
}

test('from an untrusted peer, X-Forwarded-For and Forwarded are ignored: the per-address cap counts the peer', async (t) => {
  const host = await startHost({ args: ['--max-sockets-per-ip', '2', '--trusted-proxies', '127.0.0.1'] });
  t.after(() => host.stop());
  // 127.0.0.2 is not a trusted proxy: whatever it forwards, it is the client.
  const from = { localAddress: '127.0.0.2' };
  const opened = [
    ...(await upgrades(host.url, xff('198.51.100.1'), 1, from)),
    ...(await upgrades(host.url, { Forwarded: 'for=198.51.100.2' }, 1, from)),
  ];
  t.after(() => closeAll(opened));
  assert.deepEqual(opened.map((r) => r.status), [101, 101]);
  const third = await tryUpgrade(host.url, { headers: xff('198.51.100.3'), ...from });
  assert.equal(third.status, 429, 'a forged header does not buy another socket');
});

test('behind a trusted proxy each client has its own cap, and a spoofed leftmost entry changes nothing', async (t) => {
  const host = await startHost({ args: ['--max-sockets-per-ip', '2', '--trusted-proxies', '127.0.0.1,10.0.0.0/8'] });
  t.after(() => host.stop());
  // A client that prepends made-up addresses; our proxies (10.x, then the peer) append.
  const spoofed = (n) => xff(`6.6.6.${n}, 198.51.100.7, 10.1.1.1`);
  const a = await upgrades(host.url, spoofed(1), 1);
  const mapped = await upgrades(host.url, xff('::ffff:198.51.100.7'), 1);
  t.after(() => closeAll([...a, ...mapped]));
  assert.deepEqual([...a, ...mapped].map((r) => r.status), [101, 101]);
  assert.equal((await tryUpgrade(host.url, { headers: spoofed(2) })).status, 429, 'the same client, however it dresses up');
  const others = await upgrades(host.url, xff('198.51.100.8'), 2);
  const v6 = await upgrades(host.url, xff('2001:db8::1'), 2);
  t.after(() => closeAll([...others, ...v6]));
  assert.deepEqual([...others, ...v6].map((r) => r.status), [101, 101, 101, 101], 'other clients behind the same proxy');
});

test('the rate limit: 429 with Retry-After past the burst, per client behind the proxy; probes and /metrics from inside exempt, /metrics through the proxy refused', async (t) => {
  const host = await startHost({ args: ['--rate-limit-per-s', '1', '--rate-limit-burst', '5', '--trusted-proxies', '127.0.0.1'] });
  t.after(() => host.stop());
  const get = (path, client) => fetch(`${host.url}${path}`, { headers: xff(client) });
  const statuses = [];
  for (let i = 0; i < 8; i++) statuses.push((await get('/api/phrases?limit=1', '198.51.100.20')).status);
  assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
  assert.deepEqual(statuses.slice(5), [429, 429, 429]);
  const limited = await get('/', '198.51.100.20');
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1, `Retry-After: ${limited.headers.get('retry-after')}`);
  assert.match(await limited.text(), /too many requests from this address/);
  assert.equal(limited.headers.get('x-content-type-options'), 'nosniff', 'a refusal keeps the security headers');
  const other = await get('/', '198.51.100.21');
  assert.equal(other.status, 200, 'another client is not held back');
  assert.match(await other.text(), /<\/html>\s*$/, 'the home page, whole');
  for (const [path, body] of [['/healthz', /^ok$/], ['/readyz', /^ready$/]]) {
    for (let i = 0; i < 10; i++) {
      const answer = await get(path, '198.51.100.20');
      assert.deepEqual([answer.status, body.test(await answer.text())], [200, true], `${path}: its own answer, not a refusal`);
    }
  }
  // /metrics is Prometheus's, inside the network: never limited, and never served through
  // the proxy, to a visitor, whose asking is limited as any other.
  for (let i = 0; i < 10; i++) {
    const answer = await fetch(`${host.url}/api/phrases?limit=1`);
    assert.ok([200, 429].includes(answer.status));
  }
  assert.equal((await fetch(`${host.url}/api/phrases?limit=1`)).status, 429, 'the loopback is past its rate too');
  for (let i = 0; i < 10; i++) {
    const answer = await fetch(`${host.url}/metrics`);
    assert.deepEqual([answer.status, /^# TYPE lastwords_rate_limited_total counter$/m.test(await answer.text())], [200, true], '/metrics, its own answer');
  }
  const visitor = await get('/metrics', '198.51.100.21');
  assert.equal(visitor.status, 403);
  assert.match(await visitor.text(), /^\/metrics is served to the networks --metrics-from names/);
  const refused = await metric(host.url, 'lastwords_rate_limited_total');
  assert.ok(refused >= 4 + 1, `${refused} refused`);
  // A second later the client has one request again.
  await sleep(1100);
  const again = await get('/api/phrases?limit=1', '198.51.100.20');
  assert.equal(again.status, 200);
  assert.equal((await again.json()).phrases.length, 1);
});

test('the default rate leaves a page load, its assets and typing in the checker alone', async (t) => {
  const host = await startHost();
  t.after(() => host.stop());
  const html = await (await fetch(`${host.url}/words`)).text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const requests = [
    ...assets.map((path) => fetch(`${host.url}${path}`)),
    ...'DINO ROAR AGAIN'.split('').map((_, i) => fetch(`${host.url}/api/phrases/check?word=${encodeURIComponent('DINO ROAR AGAIN'.slice(0, i + 1))}`)),
    ...Array.from({ length: 10 }, () => fetch(`${host.url}/api/phrases?limit=48`)),
  ];
  const statuses = (await Promise.all(requests)).map((r) => r.status);
  assert.ok(statuses.length > 25);
  assert.deepEqual(statuses.filter((s) => s === 429), []);
});

test("a classroom behind one address: thirty cold caches loading the home page at once get every asset; its pages still meet the rate", async (t) => {
  const host = await startHost();
  t.after(() => host.stop());
  const html = await (await fetch(`${host.url}/`)).text();
  const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]))];
  assert.ok(assets.length >= 20, `${assets.length} assets on the home page`);
  // Each a browser's six connections at a time.
  const browser = async () => {
    const answers = [];
    for (let i = 0; i < assets.length; i += 6) {
      const fetched = assets.slice(i, i + 6).map(async (path) => {
        const response = await fetch(`${host.url}${path}`);
        await response.arrayBuffer();
        return [path, response.status];
      });
      answers.push(...(await Promise.all(fetched)));
    }
    return answers;
  };
  const statuses = (await Promise.all(Array.from({ length: 30 }, browser))).flat();
  assert.deepEqual(statuses.filter(([, status]) => status !== 200), [], `of ${statuses.length} asset requests`);
  // What costs a render is still held to the rate: 150 API pages at once, past the burst.
  const pages = await Promise.all(Array.from({ length: 150 }, () => fetch(`${host.url}/api/phrases?limit=1`).then((r) => r.status)));
  assert.ok(pages.filter((status) => status === 429).length >= 30, `the API past its rate: ${pages.filter((status) => status === 429).length} refused`);
});

test('SIGTERM drains: /readyz 503 at once while pages and sockets are still served, then 1001 and exit 0', async () => {
  const host = await startHost({ args: ['--drain-s', '2', '--shutdown-timeout-s', '2'] });
  try {
    const early = connectLive(host.url);
    await early.until((c) => c.messages.length > 0, 5000, 'the snapshot');
    const signalled = Date.now();
    host.signal('SIGTERM');
    await poll(() => fetch(`${host.url}/readyz`).then((r) => r.status), (s) => s === 503, 1000, '/readyz 503 on SIGTERM');
    const ready = await fetch(`${host.url}/readyz`);
    assert.equal(await ready.text(), 'draining: this host is stopping');
    const page = await fetch(`${host.url}/words`);
    assert.equal(page.status, 200, 'pages are still served');
    assert.match(await page.text(), /Last Words minted/, 'the words page, not an error page');
    const late = connectLive(host.url);
    await late.until((c) => c.messages.length > 0, 2000, 'a socket opened while draining');
    assert.equal(await metric(host.url, 'lastwords_draining'), 1);
    await poll(() => connects(host.url), (up) => !up, 5000, 'the listener closed after the drain');
    assert.ok(Date.now() - signalled >= 1900, `stopped accepting after ${Date.now() - signalled} ms, before the drain ended`);
    await early.until((c) => c.closed !== null, 3000, 'the close frame');
    await late.until((c) => c.closed !== null, 3000, 'the close frame');
    assert.equal(early.closed, 1001);
    assert.equal(late.closed, 1001);
    const { code } = await host.exited;
    assert.equal(code, 0);
    assert.match(host.log(), /draining: \/readyz answers 503/);
  } finally {
    await host.stop();
  }
});

test('a second signal ends the drain at once', async () => {
  const starting = Date.now();
  const host = await startHost({ args: ['--drain-s', '60'] });
  // Stopping undoes what starting did: twice what starting took here bounds it.
  const lateBy = margin(Date.now() - starting, 2, 3000);
  try {
    host.signal('SIGTERM');
    await poll(() => fetch(`${host.url}/readyz`).then((r) => r.status), (s) => s === 503, 1000, '/readyz 503');
    assert.equal(await (await fetch(`${host.url}/readyz`)).text(), 'draining: this host is stopping');
    const second = Date.now();
    host.signal('SIGINT');
    const { code } = await host.exited;
    assert.equal(code, 0);
    const took = Date.now() - second;
    assert.ok(took < lateBy, `exited ${took} ms after the second signal, not at once (+${lateBy} ms), as if waiting out the 60 s drain`);
    assert.match(host.log(), /a second signal: stopping now/);
  } finally {
    await host.stop();
  }
});

test('SIGTERM during a reconnect storm: every socket is told 1001 or refused, and the host exits 0', async () => {
  // No per-address limits: the storm comes from one address.
  const host = await startHost({ args: ['--drain-s', '1', '--shutdown-timeout-s', '3', '--max-sockets-per-ip', '0', '--max-connections-per-ip', '0', '--rate-limit-per-s', '0'] });
  try {
    const sockets = [];
    let storming = true;
    // Each batch as soon as the one before is answered: as fast as this host takes them,
    // on a slow machine or a fast one.
    const storm = (async () => {
      while (storming) {
        const batch = Array.from({ length: 20 }, () => connectLive(host.url));
        sockets.push(...batch);
        // Refused once the listener is closed: an outcome, not a failure.
        await Promise.all(batch.map((socket) => socket.opened.catch(() => {})));
      }
    })();
    const live = () => sockets.filter((s) => s.messages.length > 0);
    // The signal finds the storm under way: a hundred of its sockets hold their snapshot.
    await poll(() => live().length, (n) => n >= 100, 30_000, 'a hundred sockets of the storm open');
    const openAtSignal = live();
    host.signal('SIGTERM');
    const { code } = await host.exited;
    storming = false;
    await storm;
    assert.equal(code, 0);
    // The host is gone: each socket hears how it ended as soon as its close arrives.
    await Promise.all(sockets.map((s) => s.until((c) => c.closed !== null, 10_000, 'the end of a storm socket')));
    const outcomes = sockets.map((s) => s.closed);
    assert.ok(sockets.length > openAtSignal.length, `${sockets.length} sockets tried, ${openAtSignal.length} open at the signal`);
    assert.deepEqual(openAtSignal.map((s) => s.closed).filter((c) => c !== 1001), [], 'every socket open at the signal was told to reconnect elsewhere');
    // 1006: the connection ended without a close frame, as a refused one does.
    assert.deepEqual(outcomes.filter((c) => c !== 1001 && c !== 1006), [], 'every other socket was told 1001 or refused');
    assert.doesNotMatch(host.log(), /panicked/);
  } finally {
    await host.stop();
  }
});
