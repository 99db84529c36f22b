// Starts the Firestore emulator launcher as a child process, so tests can kill it and
// start it again on the same port.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const launcher = new URL('./firestore-emulator.mjs', import.meta.url).pathname;

export async function startEmulator(port = 0) {
  const child = spawn(process.execPath, [launcher, String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = [];
  let ready;
  const started = new Promise((resolve, reject) => {
    ready = resolve;
    child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  lines.on('line', (line) => {
    if (line.startsWith('READY ')) ready(Number(line.slice(6)));
    else pending.shift()?.(line);
  });
  const boundPort = await started;
  const send = (command) =>
    new Promise((resolve, reject) => {
      pending.push((line) => (line === 'OK' || line.startsWith('OK ') ? resolve(line.slice(3)) : reject(new Error(line))));
      child.stdin.write(`${JSON.stringify(command)}\n`);
    });
  return {
    port: boundPort,
    host: `127.0.0.1:${boundPort}`,
    pid: child.pid,
    /** Stops the emulator's process (SIGSTOP): connections stay open and nothing answers. */
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    set: (id, fields) => send({ set: { id, fields } }),
    remove: (id) => send({ delete: id }),
    /** The documents RunQuery and BatchGet have sent so far: what Firestore bills as reads. */
    documentsRead: async () => Number(await send({ reads: true })),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * An emulator holding `documents` (id → fields) and a host following it, for tests of
 * the Firestore mode. `args` are added to the host's Firestore flags.
 * @param {Record<string, Record<string, unknown>>} documents
 * @param {{ args?: string[] }} [options]
 */
export async function startFirestoreHost(documents, { args = [] } = {}) {
  const emulator = await startEmulator();
  for (const [id, fields] of Object.entries(documents)) await emulator.set(id, fields);
  const { startHost } = await import('./host.mjs');
  const host = await startHost({
    args: ['--firestore-project', 'test', ...args],
    env: { FIRESTORE_EMULATOR_HOST: emulator.host },
  });
  return { emulator, host };
}
