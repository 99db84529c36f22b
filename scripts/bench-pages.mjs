// Phrase pages at scale, against a running host (scripts/bench pages starts one on
// 100,000 phrases): a phrase page's cache miss (first request of a page no one asked
// for, brotli, time to the last byte), its brotli size, and a crawler walking phrase
// pages and further pages of /words with several connections while the CLI adds a
// phrase each second: its p50/p99, and whether any page waited behind another's.
//
//   node scripts/bench-pages.mjs --url=http://127.0.0.1:8080 --bin=target/release/lastwords \
//     --data-dir=DIR [--misses=200] [--seconds=20] [--crawlers=4]
import http from 'node:http';
import { execFile } from 'node:child_process';

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const base = new URL(args.url ?? 'http://127.0.0.1:8080');
const misses = Number(args.misses ?? 200);
const seconds = Number(args.seconds ?? 20);
const crawlers = Number(args.crawlers ?? 4);
const agent = new http.Agent({ keepAlive: true, maxSockets: crawlers + 2 });

/** GET `path` with brotli: status, body bytes as sent, milliseconds to the last byte. */
function get(path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(new URL(path, base), { agent, headers: { 'accept-encoding': 'br' } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () =>
        resolve({ status: response.statusCode, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function json(path) {
  const response = await fetch(new URL(path, base));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

/** The `q` quantile (0–1) of `values`, sorted as numbers. */
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const ms = (value) => `${value.toFixed(2)} ms`;

async function renderTotals() {
  const text = await (await fetch(new URL('/metrics', base))).text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum: value('lastwords_render_seconds_sum'), count: value('lastwords_render_seconds_count') };
}

// Every phrase and every list cursor, through the API.
const ids = [];
const cursors = [];
for (let after = ''; ; ) {
  const page = await json(`/api/phrases?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
  ids.push(...page.phrases.map((phrase) => phrase.id));
  // The host's pages are 48 long: every 48th phrase starts one.
  for (let i = 47; i < page.phrases.length; i += 48) cursors.push(`${page.phrases[i].created}-${page.phrases[i].id}`);
  if (!page.next) break;
  after = page.next;
}
const shuffled = (list) => list.map((value) => [Math.random(), value]).sort((a, b) => a[0] - b[0]).map(([, value]) => value);
const phrasePath = (id) => `/words/${encodeURIComponent(id)}`;
console.log(`${ids.length} phrases, ${cursors.length} further pages of /words`);

// Misses: pages no one asked for, one at a time.
const order = shuffled(ids);
const before = await renderTotals();
const missTimes = [];
let brotli = 0;
for (const id of order.slice(0, misses)) {
  const { status, bytes, ms: took } = await get(phrasePath(id));
  if (status !== 200) throw new Error(`${phrasePath(id)}: ${status}`);
  missTimes.push(took);
  brotli = Math.max(brotli, bytes);
}
const after = await renderTotals();
const renderMean = after.count > before.count ? ((after.sum - before.sum) / (after.count - before.count)) * 1000 : NaN;
const hitTimes = [];
for (const id of order.slice(0, misses)) hitTimes.push((await get(phrasePath(id))).ms);
console.log(
  `phrase page miss (${misses}, one at a time, brotli, to the last byte): p50 ${ms(quantile(missTimes, 0.5))}, p90 ${ms(quantile(missTimes, 0.9))}, p99 ${ms(quantile(missTimes, 0.99))}; render alone (mean, /metrics) ${ms(renderMean)}`,
);
console.log(`phrase page hit: p50 ${ms(quantile(hitTimes, 0.5))}, p99 ${ms(quantile(hitTimes, 0.99))}`);
console.log(`phrase page size: ${(brotli / 1000).toFixed(1)} KB brotli at most`);

// The crawler: phrase pages and list pages, uncached ones first, while a phrase is added each second.
const work = shuffled([...order.slice(misses).map(phrasePath), ...cursors.map((cursor) => `/words?after=${encodeURIComponent(cursor)}`)]);
let next = 0;
let adds = 0;
const crawl = { phrase: [], list: [] };
let errors = 0;
const deadline = Date.now() + seconds * 1000;
const adding = (async () => {
  for (let i = 0; Date.now() < deadline; i++) {
    const started = Date.now();
    await new Promise((resolve) =>
      execFile(args.bin, ['phrases', 'add', `CRAWL PROBE ${i} ${process.pid}`, '--name', 'Bench', '--data-dir', args['data-dir']], { env: { ...process.env, RUST_LOG: 'warn' } }, (error) => {
        if (!error) adds += 1;
        resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - started))));
  }
})();
await Promise.all(
  Array.from({ length: crawlers }, async () => {
    while (Date.now() < deadline && next < work.length) {
      const path = work[next++];
      const { status, ms: took } = await get(path);
      if (status !== 200) errors += 1;
      (path.startsWith('/words?') ? crawl.list : crawl.phrase).push(took);
    }
  }),
);
await adding;
const all = [...crawl.phrase, ...crawl.list];
console.log(
  `crawler (${crawlers} connections, ${seconds} s, ${adds} phrases added meanwhile): ${all.length} pages (${crawl.phrase.length} phrase, ${crawl.list.length} list), ${errors} not 200; p50 ${ms(quantile(all, 0.5))}, p99 ${ms(quantile(all, 0.99))}, max ${ms(Math.max(...all))}; phrase pages p99 ${ms(quantile(crawl.phrase, 0.99))}, list pages p99 ${ms(quantile(crawl.list, 0.99))}`,
);
agent.destroy();
