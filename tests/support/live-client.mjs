// A real WebSocket client of /api/phrases/live that keeps the list the way the browser
// does: snapshots replace it, changes apply only on top of the version they name.
import WebSocket from 'ws';

export function connectLive(baseUrl, since) {
  const url = `${baseUrl.replace(/^http/, 'ws')}/api/phrases/live${since ? `?since=${since}` : ''}`;
  const socket = new WebSocket(url, { headers: { Origin: baseUrl } });
  const client = {
    socket,
    version: since ?? 0,
    phrases: new Map(),
    messages: [],
    closed: null,
    words: () => [...client.phrases.values()].map((p) => p.word).sort(),
  };
  const waiters = new Set();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
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
