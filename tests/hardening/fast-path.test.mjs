// The cached pages' fast path (server/src/routes/fast.rs) keeps every guard of the
// router: If-None-Match gets 304, HEAD gets no body, a missing Host gets 400, past the
// connection budget a cached page gets 503, pipelined requests are answered in order,
// and no response ever carries one version's headers with another version's body,
// however the store changes under keep-alive and pipelined load.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import net from 'node:net';
import zlib from 'node:zlib';
import { startHost } from '../support/host.mjs';
import { rawRequest } from '../support/raw-http.mjs';
import { poll, sleep } from '../support/poll.mjs';

let host;
let pages;

before(async () => {
  host = await startHost({
    phrases: [
      { id: 'a1', word: 'HELLO', name: 'Rex' },
      { id: 'b2', word: 'GOODBYE', name: 'Stego' },
    ],
    // These tests send thousands of requests from one address.
    args: ['--rate-limit-per-s', '0'],
  });
  pages = ['/', '/words', '/words/a1', '/Words/a1', '/words/a1/card.png'];
  // Cached in every encoding, so what follows takes the fast path.
  for (const path of pages) {
    for (const encoding of ['identity', 'gzip', 'br']) {
      const response = await fetch(`${host.url}${path}`, { headers: { 'Accept-Encoding': encoding } });
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
    }
  }
});

after(async () => {
  await host?.stop();
});

/**
 * The ETag the host gives a document sent with `coding`: the quoted first 12 bytes of
 * its SHA-256, and the coding's name after them for a compressed variant. A page that
 * carries the list's version in its props is hashed without it (another host, or the
 * same after a restart, numbers versions its own way), and its tag is weak.
 */
const etagOf = (bytes, coding = 'identity') => {
  const version = /"version":\d+/.exec(bytes.toString('latin1'));
  const hashed = version ? Buffer.concat([bytes.subarray(0, version.index), bytes.subarray(version.index + version[0].length)]) : bytes;
  const digest = createHash('sha256').update(hashed).digest('hex').slice(0, 24);
  const tag = coding === 'identity' ? `"${digest}"` : `"${digest}-${coding}"`;
  return version ? `W/${tag}` : tag;
};

/** The identity bytes of a body sent with `coding`. */
function decoded(body, coding) {
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  return body;
}

/**
 * Writes `requests` (raw bytes each) on one connection at once and reads the responses
 * in order, each framed by its Content-Length (`heads[i]`: request i was a HEAD, so its
 * response has no body). Resolves to [{ status, headers, body }].
 */
function pipelined(url, requests, heads = []) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let buffer = Buffer.alloc(0);
    const responses = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${responses.length} of ${requests.length} responses within 15 s`));
    }, 15_000);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = heads[responses.length] ? 0 : Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) return;
        responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: buffer.subarray(end + 4, end + 4 + length) });
        buffer = buffer.subarray(end + 4 + length);
        if (responses.length === requests.length) {
          clearTimeout(timer);
          socket.destroy();
          resolve(responses);
          return;
        }
      }
    });
    socket.on('connect', () => socket.write(Buffer.concat(requests)));
  });
}

const request = (path, { method = 'GET', headers = [] } = {}) =>
  Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`, 'latin1');

test('If-None-Match with the ETag gets 304 and the ETag, no body, on every cached page and the card', async () => {
  for (const path of pages) {
    for (const encoding of ['identity', 'gzip', 'br']) {
      const first = await fetch(`${host.url}${path}`, { headers: { 'Accept-Encoding': encoding } });
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      assert.ok(etag, `${path} has an ETag`);
      const again = await rawRequest(host.url, path, { headers: [['If-None-Match', etag], ['Accept-Encoding', encoding]] });
      assert.equal(again.status, 304, `${path} ${encoding}`);
      assert.equal(again.headers.etag, etag);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers['x-content-type-options'], 'nosniff', 'the 304 keeps the security headers');
      // Another site may show a card a post links to, and nothing else of ours; a 304's
      // headers replace the cached response's, so it says the same as the 200.
      const corp = path.endsWith('.png') ? 'cross-origin' : 'same-origin';
      assert.equal(first.headers.get('cross-origin-resource-policy'), corp, path);
      assert.equal(again.headers['cross-origin-resource-policy'], corp, `${path}'s 304`);
    }
  }
});

test('a 304 to a GET or a HEAD carries no Content-Length, from the fast path or the router', async () => {
  // RFC 9110 (8.6): a 304 may only carry the length a 200 would have; a HEAD's empty
  // body is not that, and a cache refreshing its headers from the 304 could take it.
  for (const path of [...pages, '/words?check=HELLO', '/sitemap.xml', '/api/phrases', '/robots.txt']) {
    const first = await fetch(`${host.url}${path}`, { headers: { 'Accept-Encoding': 'identity' } });
    await first.arrayBuffer();
    const etag = first.headers.get('etag');
    assert.ok(etag, `${path} has an ETag`);
    const conditional = (method) => request(path, { method, headers: [['If-None-Match', etag]] });
    const answers = await pipelined(host.url, [conditional('GET'), conditional('HEAD')], [true, true]);
    for (const [method, answer] of [['GET', answers[0]], ['HEAD', answers[1]]]) {
      assert.equal(answer.status, 304, `${method} ${path}`);
      assert.equal(answer.headers['content-length'], undefined, `${method} ${path}: Content-Length on a 304`);
      assert.equal(answer.headers.etag, etag, `${method} ${path}`);
    }
  }
});

test('each encoding of a page is a representation of its own: a cache holding several learns from the 304 which one to serve', async () => {
  // A shared cache that keeps a page per Accept-Encoding (Vary) may ask with every tag it
  // holds and serves the one the 304 names (RFC 9111, 4.3): were identity and brotli one
  // tag, it could hand brotli to a client that cannot read it.
  const sitemap = await fetch(`${host.url}/sitemap.xml`);
  assert.equal(sitemap.status, 200);
  await sitemap.arrayBuffer();
  for (const path of [...pages.filter((p) => !p.endsWith('.png')), '/sitemap.xml']) {
    const tags = {};
    for (const encoding of ['identity', 'gzip', 'br']) {
      const response = await rawRequest(host.url, path, { headers: [['Accept-Encoding', encoding]] });
      assert.equal(response.status, 200, `${path} ${encoding}`);
      assert.equal(response.headers['content-encoding'] ?? 'identity', encoding, `${path} is sent in ${encoding}`);
      tags[encoding] = response.headers.etag;
    }
    assert.equal(new Set(Object.values(tags)).size, 3, `${path}: one tag per encoding, ${JSON.stringify(tags)}`);
    const all = Object.values(tags).join(', ');
    for (const encoding of ['identity', 'gzip', 'br']) {
      const again = await rawRequest(host.url, path, { headers: [['If-None-Match', all], ['Accept-Encoding', encoding]] });
      assert.equal(again.status, 304, `${path} ${encoding} with every tag`);
      assert.equal(again.headers.etag, tags[encoding], `${path}: the 304 names the ${encoding} variant`);
      assert.equal(again.headers.vary, 'accept-encoding', path);
    }
    // A client holding the identity page that now reads brotli is sent the brotli page.
    const other = await rawRequest(host.url, path, { headers: [['If-None-Match', tags.identity], ['Accept-Encoding', 'br']] });
    assert.equal(other.status, 200, `${path}: the identity tag does not validate the brotli page`);
    assert.equal(other.headers['content-encoding'], 'br', path);
    assert.equal(other.headers.etag, tags.br, path);
  }
});

test('Accept-Encoding split over two lines is read as one list, as a proxy may split it', async () => {
  for (const path of [...pages.filter((p) => !p.endsWith('.png')), '/sitemap.xml']) {
    const plain = await rawRequest(host.url, path, { headers: [['Accept-Encoding', 'identity']] });
    const split = await rawRequest(host.url, path, { headers: [['Accept-Encoding', 'identity'], ['Accept-Encoding', 'br']] });
    assert.equal(split.status, 200, path);
    assert.equal(split.headers['content-encoding'], 'br', `${path}: the second line's br is read`);
    assert.deepEqual(decoded(split.body, 'br'), plain.body, path);
    const refused = await rawRequest(host.url, path, { headers: [['Accept-Encoding', 'br, gzip'], ['Accept-Encoding', 'br;q=0']] });
    assert.equal(refused.headers['content-encoding'], 'gzip', `${path}: the second line's br;q=0 is read`);
    assert.deepEqual(decoded(refused.body, 'gzip'), plain.body, path);
  }
});

test('HEAD gets the GET headers and no body; a missing Host, or one naming no host, gets 400', async () => {
  for (const path of pages) {
    const [get, head] = await pipelined(host.url, [request(path), request(path, { method: 'HEAD' })], [false, true]);
    assert.equal(head.status, 200, path);
    assert.equal(head.body.length, 0);
    for (const name of ['content-type', 'etag', 'cache-control', 'content-security-policy', 'content-length']) {
      assert.equal(head.headers[name], get.headers[name], `${path}: HEAD's ${name}`);
    }
    const hostless = await rawRequest(host.url, path, { host: null });
    assert.equal(hostless.status, 400, `${path} without Host`);
    assert.match(hostless.text, /needs a Host header/);
    // A Host that names no host (RFC 9112, 3.2), on a kept-alive connection the fast path reads.
    for (const named of ['a, b', 'example.com/x', 'user@example.com']) {
      const [refused] = await pipelined(host.url, [Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${named}\r\n\r\n`, 'latin1')], [false]);
      assert.equal(refused.status, 400, `${path} with Host: ${named}`);
      assert.match(refused.body.toString(), /not a host name or address/);
    }
  }
});

test('pipelined requests are answered in order, fast path and router mixed, with the headers of each', async () => {
  const paths = [...pages, '/robots.txt', '/words?check=HELLO', ...pages.slice().reverse(), '/healthz', '/nowhere'];
  const encodings = ['identity', 'gzip', 'br'];
  const requests = paths.map((path, i) => request(path, { headers: [['Accept-Encoding', encodings[i % 3]]] }));
  const responses = await pipelined(host.url, requests);
  assert.equal(responses.length, paths.length);
  for (const [i, path] of paths.entries()) {
    const { status, headers, body } = responses[i];
    assert.equal(status, path === '/nowhere' ? 404 : 200, `${i}: ${path}`);
    const expected = path.endsWith('.png') ? 'image/png' : path === '/robots.txt' ? 'text/plain' : path === '/healthz' ? null : 'text/html';
    if (expected) assert.ok(headers['content-type'].startsWith(expected), `${i}: ${path} is ${headers['content-type']}`);
    assert.equal(headers['x-frame-options'], 'DENY', `${i}: ${path}`);
    if (headers['content-type']?.startsWith('text/html') && !path.includes('?') && path !== '/nowhere') {
      const coding = headers['content-encoding'] ?? 'identity';
      assert.equal(etagOf(decoded(body, coding), coding), headers.etag, `${i}: ${path}'s ETag is its body's`);
    }
  }
});

test('while the store changes, every response under keep-alive and pipelining carries its own body\'s ETag', async () => {
  const encodings = ['identity', 'gzip', 'br'];
  const seen = new Set();
  let checked = 0;
  let stop = false;
  const hammer = async () => {
    while (!stop) {
      const paths = Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? '/words/a1' : '/words'));
      const requests = paths.map((path, i) => request(path, { headers: [['Accept-Encoding', encodings[i % 3]]] }));
      for (const [i, response] of (await pipelined(host.url, requests)).entries()) {
        assert.equal(response.status, 200, paths[i]);
        const coding = response.headers['content-encoding'] ?? 'identity';
        assert.equal(coding, encodings[i % 3], `${paths[i]} in the encoding asked for`);
        assert.equal(etagOf(decoded(response.body, coding), coding), response.headers.etag, `${paths[i]} ${coding}: headers and body of one version`);
        if (paths[i] === '/words') seen.add(response.headers.etag);
        checked += 1;
      }
    }
  };
  const load = Promise.all(Array.from({ length: 4 }, hammer));
  try {
    for (let i = 0; i < 6; i++) {
      const added = await host.cli('phrases', 'add', `CHANGE ${i}`, '--name', 'Tess');
      assert.equal(added.code, 0, added.stderr);
      await sleep(150);
    }
  } finally {
    stop = true;
    await load;
  }
  assert.ok(seen.size >= 2, `/words changed under load (${seen.size} versions seen in ${checked} responses)`);
});

test('past the connection budget a cached page gets 503 at once, and is served again after', async () => {
  const small = await startHost({ args: ['--max-connections', '2', '--rate-limit-per-s', '0'] });
  const held = [];
  try {
    const warm = await fetch(`${small.url}/words`);
    assert.equal(warm.status, 200);
    await warm.arrayBuffer();
    const { port } = new URL(small.url);
    for (let i = 0; i < 2; i++) {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      held.push(socket);
    }
    // The host takes connections in the order they came: the held ones (and the warm-up's,
    // kept alive) fill the budget before this one is accepted.
    const busy = await rawRequest(small.url, '/words');
    assert.equal(busy.status, 503, 'past the budget');
    assert.ok(Number(busy.headers['retry-after']) > 0);
    for (const socket of held) socket.destroy();
    held.length = 0;
    // Their places are free once the host has seen them closed.
    let again;
    await poll(async () => (again = await rawRequest(small.url, '/words')).status, (status) => status === 200, 5000, 'served again once a place is free');
    assert.match(again.text, /Last Words minted/, 'the words page, not an error page');
  } finally {
    for (const socket of held) socket.destroy();
    await small.stop();
  }
});
