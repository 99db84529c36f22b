// The Node.js baseline of docs/benchmarks.md: the UI's own server bundle
// (ui/dist/server.js, the code the host's JS engines load) run by Node's V8, which
// renders with react-dom/server's renderToString, served by node:http. The words page
// gets the props server/src/pages.rs builds and the document of
// server/templates/shell.html, so both hosts serve the same page for the same list.
//
//   node scripts/node-baseline/server.mjs --phrases FILE --bench
//       times __lastwords.render of the words request as render_bench does
//       (20 warm-up renders, then 200 timed), and render + document
//   node scripts/node-baseline/server.mjs --phrases FILE --port PORT
//       GET /words           rendered once at start (cached, as the host serves it)
//       GET /words/uncached  rendered for every request
//       GET /healthz         ok
//
// FILE is an embedded store's phrases.json (render_bench --write-phrases writes one).
// scripts/bench (section node) runs both against the same list as the host.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const WARM_UP = 20;
const RUNS = 200;
const dist = new URL('../../ui/dist/', import.meta.url);

const { values: options } = parseArgs({
  options: {
    phrases: { type: 'string' },
    port: { type: 'string' },
    bench: { type: 'boolean', default: false },
  },
});
if (!options.phrases || (!options.bench && !options.port)) {
  console.error('usage: server.mjs --phrases FILE (--bench | --port PORT)');
  process.exit(2);
}

// The bundle is an IIFE that sets globalThis.__lastwords; Node has every API its
// polyfills stand in for, so they install nothing.
await import(new URL('server.js', dist));
const { render } = globalThis.__lastwords;
const manifest = JSON.parse(readFileSync(new URL('manifest.json', dist), 'utf8'));
const phrases = JSON.parse(readFileSync(options.phrases, 'utf8'));
// Document order, as the host's Snapshot keeps it (ids are compared by code point).
phrases.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

const port = Number(options.port ?? 0);
const baseUrl = `http://127.0.0.1:${port}`;

/** The props of `pages::words` with the host's default settings and an empty check. */
const props = {
  site: {
    productName: 'Words',
    baseUrl,
    links: {
      chat: 'https://discord.com/invite/dinos',
      social: 'https://twitter.com/dinos',
      marketplace: 'https://opensea.io/collection/dinos',
      blog: 'https://medium.com/@dinos',
    },
    pressEmail: 'press@example.com',
  },
  version: 7,
  phrases,
  loaded: true,
  check: { input: '', normalized: '', length: 0, status: 'empty' },
};

/** What `pages::render` does on a miss, minus the compression: request JSON, render, document. */
function page() {
  const body = render(JSON.stringify({ route: 'words', props }));
  return documentOf(body);
}

if (options.bench) {
  const request = JSON.stringify({ route: 'words', props });
  console.log(
    `node ${process.version}, words request: ${phrases.length} phrases, ${request.length} bytes of JSON; ${WARM_UP} warm-up runs, then ${RUNS} timed`,
  );
  report(`node render words (${phrases.length} phrases)`, measure(() => render(request)));
  report(`node page words (${phrases.length} phrases, request JSON + render + document)`, measure(page));
  // React's server build opened a MessageChannel while loading, which keeps Node running.
  process.exit(0);
} else {
  const cached = Buffer.from(page());
  const server = createServer((request, response) => {
    const path = request.url.split('?')[0];
    if (request.method !== 'GET') return send(response, 405, 'text/plain', 'GET only\n');
    if (path === '/words') return send(response, 200, 'text/html; charset=utf-8', cached);
    if (path === '/words/uncached') return send(response, 200, 'text/html; charset=utf-8', page());
    if (path === '/healthz') return send(response, 200, 'text/plain', 'ok');
    return send(response, 404, 'text/plain', 'not found\n');
  });
  server.listen(port, '127.0.0.1', () => console.log(`node baseline serving ${baseUrl}/words`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function send(response, status, type, body) {
  response.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache',
  });
  response.end(body);
}

/** server/templates/shell.html with the head render_bench uses for the words page. */
function documentOf(body) {
  const head = {
    title: 'Already-minted Last Words — Dinos',
    description:
      'Every Last Words already minted by the Dinos community, and a checker to see whether yours is still free.',
    canonical: `${baseUrl}/words`,
    image: `${baseUrl}/og.png`,
  };
  const preload = manifest.preload.map((module) => `\n<link rel="modulepreload" href="/assets/${escape(module)}">`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(head.title)}</title>
<meta name="description" content="${escape(head.description)}">
<link rel="canonical" href="${escape(head.canonical)}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="Dinos">
<meta property="og:title" content="${escape(head.title)}">
<meta property="og:description" content="${escape(head.description)}">
<meta property="og:url" content="${escape(head.canonical)}">
<meta property="og:image" content="${escape(head.image)}">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="Dinos: cartoon dinosaurs under a falling meteor, and the words Last Words">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="${escape(head.title)}">
<meta name="twitter:description" content="${escape(head.description)}">
<meta name="twitter:image" content="${escape(head.image)}">
<meta name="theme-color" content="#000000">
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="/apple-touch-icon.png">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="stylesheet" href="/assets/${escape(manifest.css)}">
<script type="module" src="/assets/${escape(manifest.js)}"></script>${preload}
</head>
<body>
<div id="root">${body}</div>
<script type="application/json" id="__props">${inertJson(props)}</script>
</body>
</html>`;
}

/** askama's HTML escaping. */
function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** server/src/escape.rs `inert_json`: JSON that cannot end the script element. */
function inertJson(value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function measure(run) {
  for (let i = 0; i < WARM_UP; i++) run();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

/** Prints p50, p99 and mean as render_bench does (nearest rank). */
function report(label, times) {
  times.sort((a, b) => a - b);
  const at = (fraction) => times[Math.min(times.length, Math.max(1, Math.ceil(times.length * fraction))) - 1];
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  const ms = (value) => (value < 1 ? value.toFixed(2) : value.toFixed(1));
  console.log(`${label}: p50 ${ms(at(0.5))} ms, p99 ${ms(at(0.99))} ms, mean ${ms(mean)} ms`);
}
