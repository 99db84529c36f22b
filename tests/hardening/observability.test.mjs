// What an operator sees: /healthz, /readyz and /metrics in the Prometheus text format,
// with series an attacker cannot multiply by inventing paths.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { startHost } from '../support/host.mjs';
import { connectLive } from '../support/live-client.mjs';
import { rawRequest } from '../support/raw-http.mjs';
import { scrape, waitFor } from './metrics.mjs';

const PHRASES = [
  { id: 'a1', word: 'SEE YOU LATER', name: 'Rex' },
  { id: 'b2', word: 'TOO BIG TO FAIL', name: 'Bronto' },
];

let host;

before(async () => {
  host = await startHost({ phrases: PHRASES });
});

after(async () => {
  await host?.stop();
});

const requests = (samples) => [...samples.keys()].filter((name) => name.startsWith('lastwords_http_requests_total{'));

test('/healthz and /readyz answer 200 on a host with its list loaded', async () => {
  const health = await fetch(`${host.url}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'ok');
  const ready = await fetch(`${host.url}/readyz`);
  assert.deepEqual([ready.status, await ready.text()], [200, 'ready']);
});

test('/metrics is well-formed Prometheus text: every family typed and described, histograms cumulative', async () => {
  await fetch(`${host.url}/words?check=hello`);
  const { status, type, text, samples } = await scrape(host.url);
  assert.equal(status, 200);
  assert.match(type, /^text\/plain; version=0\.0\.4/);
  const typed = new Set([...text.matchAll(/^# TYPE (\w+) (counter|gauge|histogram)$/gm)].map((m) => m[1]));
  const described = new Set([...text.matchAll(/^# HELP (\w+) \S/gm)].map((m) => m[1]));
  for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
    assert.match(line, /^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[\d.e+]+$/, `sample line ${line}`);
    const family = line.split(/[{ ]/)[0].replace(/_(bucket|sum|count)$/, '');
    assert.ok(typed.has(family) && described.has(family), `${family} has # TYPE and # HELP`);
  }
  for (const name of ['lastwords_http_requests_total', 'lastwords_render_seconds', 'lastwords_websocket_connections', 'lastwords_feed_up', 'lastwords_feed_synced', 'lastwords_feed_seconds_since_sync']) {
    assert.ok(typed.has(name), `${name} is exported`);
  }

  const buckets = [...samples].filter(([name]) => name.startsWith('lastwords_render_seconds_bucket'));
  const counts = buckets.map(([, value]) => value);
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'buckets are cumulative');
  assert.equal(buckets.at(-1)[0], 'lastwords_render_seconds_bucket{le="+Inf"}');
  assert.equal(counts.at(-1), samples.get('lastwords_render_seconds_count'));
  assert.ok(samples.get('lastwords_render_seconds_count') >= 1, 'the check render was timed');
  assert.ok(samples.get('lastwords_render_seconds_sum') > 0);
});

test('requests are counted by route template and status', async () => {
  const before = (await scrape(host.url)).samples;
  const count = (samples, route, status) => samples.get(`lastwords_http_requests_total{route="${route}",status="${status}"}`) ?? 0;
  await fetch(`${host.url}/words`);
  await fetch(`${host.url}/no/such/page`);
  await fetch(`${host.url}/words`, { method: 'POST' });
  await rawRequest(host.url, '/words?check=%FF');
  await fetch(`${host.url}/api/phrases/check`);
  const { samples } = await scrape(host.url);
  assert.equal(count(samples, '/words', 200) - count(before, '/words', 200), 1);
  assert.equal(count(samples, 'unmatched', 404) - count(before, 'unmatched', 404), 1);
  assert.equal(count(samples, '/words', 405) - count(before, '/words', 405), 1);
  assert.equal(count(samples, '/words', 400) - count(before, '/words', 400), 1);
  assert.equal(count(samples, '/api/phrases/check', 400) - count(before, '/api/phrases/check', 400), 1);
});

test("a cached page's 304 is counted as a 304, on the connection's fast path and through the router", async () => {
  const count = (samples, status) => samples.get(`lastwords_http_requests_total{route="/words",status="${status}"}`) ?? 0;
  const etag = (await fetch(`${host.url}/words`)).headers.get('etag');
  await fetch(`${host.url}/words`);
  const before = (await scrape(host.url)).samples;
  // A plain keep-alive GET is answered before the router; one with a query by it.
  for (const path of ['/words', '/words', '/words?utm_source=x']) {
    assert.equal((await fetch(`${host.url}${path}`, { headers: { 'if-none-match': etag } })).status, 304);
  }
  const { samples } = await scrape(host.url);
  assert.equal(count(samples, 304) - count(before, 304), 3);
  assert.equal(count(samples, 200) - count(before, 200), 0);
});

test('inventing paths does not invent series', async () => {
  const before = requests((await scrape(host.url)).samples);
  for (let i = 0; i < 30; i++) {
    await fetch(`${host.url}/made-up-${i}`);
    await fetch(`${host.url}/assets/made-up-${i}.js`);
    await rawRequest(host.url, `/made-up-${i}"}\n{x="`);
  }
  const after = requests((await scrape(host.url)).samples);
  assert.ok(after.length - before.length <= 3, `${after.length - before.length} new series`);
  assert.ok(after.every((name) => !name.includes('made-up')), 'no series is named after a request path');
});

test('the live and feed gauges follow what happens', async () => {
  const client = connectLive(host.url);
  await client.until((c) => c.phrases.size === 2, 3000, 'the snapshot');
  const { samples } = await scrape(host.url);
  assert.equal(samples.get('lastwords_websocket_connections'), 1);
  assert.ok(samples.get('lastwords_websocket_messages_sent_total') >= 1);
  assert.equal(samples.get('lastwords_feed_up'), 1);
  assert.equal(samples.get('lastwords_feed_synced'), 1);
  assert.ok(samples.get('lastwords_feed_seconds_since_sync') >= 0);
  assert.equal(samples.get('lastwords_phrases'), 2);

  const added = await host.cli('phrases', 'add', 'counted', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await waitFor(host.url, 'lastwords_phrases', (n) => n === 3, 3000);
  client.close();
  await waitFor(host.url, 'lastwords_websocket_connections', (n) => n === 0, 3000);
});

test('a Prometheus parser reads /metrics: request latency by route, the process series, the build', async () => {
  const { default: parse } = await import('parse-prometheus-text-format');
  for (let i = 0; i < 3; i++) await fetch(`${host.url}/words`);
  const families = new Map(parse((await scrape(host.url)).text).map((family) => [family.name, family]));
  for (const name of ['process_open_fds', 'process_max_fds', 'process_resident_memory_bytes', 'process_cpu_seconds_total', 'process_start_time_seconds', 'lastwords_build_info']) {
    assert.ok(families.has(name), `${name} is served`);
  }
  const value = (name) => Number(families.get(name).metrics[0].value);
  assert.ok(value('process_open_fds') > 5 && value('process_open_fds') < value('process_max_fds'));
  assert.ok(value('process_resident_memory_bytes') > 10 * 1024 * 1024);
  assert.ok(value('process_start_time_seconds') <= Date.now() / 1000 && value('process_start_time_seconds') > Date.now() / 1000 - 3600);
  assert.match(families.get('lastwords_build_info').metrics[0].labels.engine, /^(quickjs|v8)$/);

  assert.equal(families.get('lastwords_http_request_duration_seconds').type, 'HISTOGRAM');
  // This parser keeps a histogram's buckets but not its labels: read the series as written.
  const { samples } = await scrape(host.url);
  const route = 'route="/words"';
  const buckets = [...samples].filter(([name]) => name.startsWith(`lastwords_http_request_duration_seconds_bucket{${route},`));
  const cumulative = buckets.map(([, count]) => count);
  assert.ok(cumulative.length > 5);
  assert.deepEqual(cumulative, [...cumulative].sort((a, b) => a - b), 'buckets are cumulative');
  assert.equal(buckets.at(-1)[0], `lastwords_http_request_duration_seconds_bucket{${route},le="+Inf"}`);
  const served = [...samples].filter(([name]) => name.startsWith(`lastwords_http_requests_total{${route},`)).reduce((sum, [, n]) => sum + n, 0);
  assert.equal(samples.get(`lastwords_http_request_duration_seconds_count{${route}}`), served, 'every /words response is timed');
  assert.equal(cumulative.at(-1), served);
  assert.ok(samples.get(`lastwords_http_request_duration_seconds_sum{${route}}`) > 0);
});
