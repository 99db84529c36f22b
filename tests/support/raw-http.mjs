// HTTP/1.1 over a bare TCP socket, for requests fetch() would refuse or tidy up: raw
// bytes in the target, malformed headers, a request sent in parts.
import net from 'node:net';

/**
 * The bytes of a request: `target` is sent byte for byte (a string is taken as latin1,
 * one byte per character, so "\u00ff" is the byte 0xFF); `headers` is a list of
 * [name, value] pairs or raw header lines. The head ends with the blank line. `host`
 * is the Host header's value (null: none); `version` the protocol, such as 'HTTP/1.0'.
 */
export function requestBytes(target, { method = 'GET', headers = [], host = '127.0.0.1', version = 'HTTP/1.1' } = {}) {
  const lines = [...(host === null ? [] : [`Host: ${host}`]), 'Connection: close', ...headers.map((h) => (Array.isArray(h) ? `${h[0]}: ${h[1]}` : h))];
  return Buffer.concat([
    Buffer.from(`${method} `, 'latin1'),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(` ${version}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`, 'latin1'),
  ]);
}

/** Parses a whole HTTP/1.1 response (the server closes after it). */
export function parseResponse(bytes) {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: Buffer.alloc(0), text: '', raw: bytes };
  const [statusLine, ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = unchunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body, text: body.toString('utf8'), raw: bytes };
}

function unchunk(body) {
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Opens a connection to `url`'s host and port, writes each of `parts` (waiting for
 * `between(i)` before part i > 0, if given; calling `written()` once the last is handed
 * to the kernel), and resolves to the parsed response once the server closes the
 * connection (from `localAddress`, if given). Rejects after `timeoutMs`.
 */
export function rawExchange(url, parts, { between, written, timeoutMs = 15_000, localAddress } = {}) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: hostname, localAddress });
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // A server may reset a connection it refuses once it has answered; what arrived counts.
    socket.on('error', (error) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && between) await between(i);
        if (!socket.destroyed) socket.write(part, i === parts.length - 1 ? written : undefined);
      }
    });
  });
}

/** One raw request; see requestBytes. */
export function rawRequest(url, target, options = {}) {
  return rawExchange(url, [requestBytes(target, options)], options);
}

/** Whether a new TCP connection to `url` is accepted. */
export function connects(url) {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
