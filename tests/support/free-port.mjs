// A port nothing listens on now, for a process that must be given its port (one that
// takes port 0 should be given that instead: a port found free may be taken meanwhile).
import { createServer } from 'node:net';

/** A free TCP port on `host`. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
