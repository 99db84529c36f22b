// A real WebSocket client of /api/phrases/live that keeps the list the way the browser
// does: snapshots replace it, changes apply only on top of the version they name. Changes
// that skip a version (the browser would resync) are kept in `gaps`: the host never
// sends one, and a test can say so. Also
// the raw pieces abuse tests need: an upgrade's status, and a bare-socket client that
// can stop reading or ignore pings.
import net from 'node:net';
import WebSocket from 'ws';

const liveUrl = (baseUrl, since) => `${baseUrl.replace(/^http/, 'ws')}/api/phrases/live${since ? `?since=${since}` : ''}`;

/**
 * @param {string} baseUrl
 * @param {number} [since]
 * @param {{ origin?: string, localAddress?: string, headers?: Record<string, string> }} [options]
 *   `origin` defaults to `baseUrl` (what a browser on the page sends); `localAddress` picks
 *   the source address; `headers` are sent too (a proxy's X-Forwarded-For).
 */
export function connectLive(baseUrl, since, { origin = baseUrl, localAddress, headers = {} } = {}) {
  const socket = new WebSocket(liveUrl(baseUrl, since), { headers: { Origin: origin, ...headers }, localAddress });
  const client = {
    socket,
    version: since ?? 0,
    phrases: new Map(),
    messages: [],
    /** `alive` messages, which come with each ping. */
    alive: 0,
    /** `changes` messages that started past the version this client had. */
    gaps: [],
    closed: null,
    words: () => [...client.phrases.values()].map((p) => p.word).sort(),
  };
  const waiters = new Set();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    // Sent with each ping, for browsers, which never see pings: counted, not kept.
    if (message.type === 'alive') {
      client.alive += 1;
      return;
    }
    client.messages.push(message);
    if (message.type === 'snapshot') {
      client.phrases = new Map(message.phrases.map((p) => [p.id, p]));
      client.version = message.version;
    } else if (message.type === 'changes' && message.from === client.version) {
      for (const change of message.changes) {
        if (change.op === 'upsert') client.phrases.set(change.phrase.id, change.phrase);
        else client.phrases.delete(change.id);
      }
      client.version = message.version;
    } else if (message.type === 'changes' && message.version > client.version) {
      client.gaps.push({ had: client.version, from: message.from, version: message.version });
    }
    for (const check of waiters) check();
  });
  socket.on('close', (code) => {
    client.closed = code;
    for (const check of waiters) check();
  });
  /** Resolves once `predicate(client)` holds; rejects after `ms`. */
  client.until = (predicate, ms = 1000, what = 'the condition') =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const check = () => {
        if (predicate(client)) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(Date.now() - started);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${what} did not happen within ${ms} ms; words: ${client.words().join(', ')}`));
      }, ms);
      waiters.add(check);
      check();
    });
  client.opened = new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  client.close = () => socket.close();
  return client;
}

/**
 * Tries to open the live feed and resolves to `{ status, headers, body }`: 101 once the
 * socket is open (it is then closed again unless `keep`, and returned as `socket`), or
 * the status of a refused upgrade. `origin: null` sends no Origin header; `headers` are
 * sent too.
 */
export function tryUpgrade(baseUrl, { origin = baseUrl, localAddress, keep = false, headers: extra = {} } = {}) {
  const headers = { ...(origin === null ? {} : { Origin: origin }), ...extra };
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(liveUrl(baseUrl), { headers, localAddress });
    socket.once('open', () => {
      if (!keep) socket.close();
      resolve({ status: 101, headers: {}, body: '', socket });
    });
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
      response.on('error', reject);
    });
    socket.once('error', (error) => reject(error));
  });
}

/**
 * The live feed over a bare TCP socket, speaking just enough WebSocket to upgrade and
 * read the server's frames. It never answers a ping; `client.socket.pause()` stops
 * reading from the socket altogether, as a peer that hangs does. Resolves once upgraded.
 */
export function rawLive(baseUrl, { since, origin = baseUrl } = {}) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  const client = { socket, frames: [], bytes: 0, error: null };
  client.closed = new Promise((resolve) => socket.once('close', resolve));
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  return new Promise((resolve, reject) => {
    // A peer the server cuts off may see a reset; that is an outcome, not a failure.
    socket.on('error', (error) => {
      client.error = error;
      if (!upgraded) reject(error);
    });
    socket.on('connect', () => {
      const path = `/api/phrases/live${since ? `?since=${since}` : ''}`;
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: ${origin}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk) => {
      client.bytes += chunk.length;
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        resolve(client);
      }
      buffer = readFrames(buffer, (frame) => client.frames.push({ ...frame, at: Date.now() }));
    });
  });
}

/** Reads the complete (unmasked) server frames at the start of `buffer`; returns the rest. */
function readFrames(buffer, onFrame) {
  for (;;) {
    if (buffer.length < 2) return buffer;
    const opcode = buffer[0] & 0x0f;
    let length = buffer[1] & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (buffer.length < 4) return buffer;
      length = buffer.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (buffer.length < 10) return buffer;
      length = Number(buffer.readBigUInt64BE(2));
      offset = 10;
    }
    if (buffer.length < offset + length) return buffer;
    const payload = buffer.subarray(offset, offset + length);
    const kind = { 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' }[opcode] ?? `opcode ${opcode}`;
    onFrame({ kind, payload, code: kind === 'close' && length >= 2 ? payload.readUInt16BE(0) : undefined });
    buffer = buffer.subarray(offset + length);
  }
}
