// Starts a real `lastwords` binary on a free loopback port with its own data folder,
// for black-box tests. The binary comes from LASTWORDS_BIN (scripts/test sets it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from './process.mjs';

export const bin = process.env.LASTWORDS_BIN ?? new URL('../../target/debug/lastwords', import.meta.url).pathname;

/** Hosts still running, killed if the runner ends this file at its deadline. */
const running = new Set();
process.once('SIGTERM', () => {
  for (const child of running) child.kill('SIGKILL');
  process.exit(143);
});

/**
 * @param {{ phrases?: {id: string, word: string, name: string}[], files?: Record<string, unknown>,
 *   args?: string[], env?: Record<string,string>,
 *   prepare?: (cli: (...args: string[]) => Promise<{code: number, stdout: string, stderr: string}>) => Promise<void> }} [options]
 *   `files` are written into the data folder before start (a string as it is, anything
 *   else as JSON), for state an earlier run would have left, such as a saved snapshot.
 *   `prepare` runs CLI commands against the data folder before start (`phrases import`).
 *   `dataDir` serves from that folder (left in place at stop) instead of a new one.
 *   `port` listens there instead of on a free port the host picks (a restart in place).
 *   `user` ({uid, gid}) runs the host and its CLI as that user, who is given the data folder
 *   and a copy of the binary in a folder of its own (the checkout may be where that user
 *   cannot reach, such as root's home).
 */
export async function startHost(options = {}) {
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lastwords-test-'));
  if (options.phrases) {
    // A phrases.json from an earlier version: the host imports it into a new store.
    writeFileSync(join(dataDir, 'phrases.json'), JSON.stringify(options.phrases, null, 2));
  }
  for (const [name, content] of Object.entries(options.files ?? {})) {
    writeFileSync(join(dataDir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  let binary = bin;
  let binaryDir;
  if (options.user) {
    chownSync(dataDir, options.user.uid, options.user.gid);
    binaryDir = mkdtempSync(join(tmpdir(), 'lastwords-bin-'));
    chmodSync(binaryDir, 0o755);
    binary = join(binaryDir, 'lastwords');
    copyFileSync(bin, binary);
    chmodSync(binary, 0o755);
  }
  const user = options.user && { ...options.user, binary };
  const cli = (...args) => runCli(['--data-dir', dataDir, ...(options.args ?? []), ...args], options.env, user);
  try {
    await options.prepare?.(cli);
  } catch (error) {
    // A host that never started has no caller to stop it and remove what it made.
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
    throw error;
  }
  // The host's own log filter unless a test sets one: RUST_LOG=info would let the
  // Firestore client's warning at every RESET (one per write on the emulator) through.
  const { RUST_LOG: _outer, ...outer } = process.env;
  const child = spawn(binary, ['serve', '--port', String(options.port ?? 0), '--data-dir', dataDir, ...(options.args ?? [])], {
    env: { ...outer, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  running.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => running.delete(child));
  const alive = () => child.exitCode === null && child.signalCode === null;
  let log = '';
  const url = await new Promise((resolve, reject) => {
    // A host that never says it serves is killed, or its open pipes would keep the test
    // file from ending. 60 s: loading 100,000 phrases on a loaded 2-core runner takes 30.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lastwords did not start in 60 s:\n${log}`));
    }, 60_000);
    const onData = (chunk) => {
      log += chunk;
      const match = /serving url=(http:\/\/[\d.:]+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${binary} could not be started (set LASTWORDS_BIN?): ${error.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lastwords exited with ${code} before serving:\n${log}`));
    });
  }).catch(async (error) => {
    // What it made goes with it: a host that never served has no caller to stop it.
    // (A process that could not be spawned may never say it exited.)
    if (child.pid !== undefined) await exited;
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
    throw error;
  });
  return {
    url,
    dataDir,
    pid: child.pid,
    log: () => log,
    /** Resolves to `{ code, signal }` once the process has ended. */
    exited,
    /** Sends `signal` to the process without waiting for it to end. */
    signal: (signal = 'SIGTERM') => child.kill(signal),
    /** Runs the binary's CLI against the same data folder. */
    cli,
    /**
     * SIGTERM (SIGKILL if that has not ended it in 20 s), then removes the data folder it
     * made; fails if the host panicked at any point of its life.
     */
    async stop() {
      if (alive()) child.kill('SIGTERM');
      const killer = setTimeout(() => alive() && child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
      const panic = log.split('\n').findIndex((line) => line.includes('panicked'));
      if (panic >= 0) assert.fail(`the host at ${url} panicked:\n${log.split('\n').slice(panic, panic + 5).join('\n')}`);
    },
  };
}

/** CPU time (user + system) the process has used, in clock ticks (1/100 s). */
export function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Runs `lastwords` with `args` (as `user`, {uid, gid, binary?}, if given: `binary` is a
 * copy that user can run); resolves to { code, stdout, stderr }.
 */
export function runCli(args, env = {}, user = undefined) {
  const { binary = bin, ...ids } = user ?? {};
  return runProcess(binary, args, { env: { ...process.env, NO_COLOR: '1', ...env }, ...ids });
}

/** Every phrase the API lists (or finds, given `q`), newest first, following its pages to the end. */
export async function allPhrases(url, q = '') {
  const phrases = [];
  let after = '';
  for (;;) {
    const params = new URLSearchParams({ limit: '200', ...(q ? { q } : {}), ...(after ? { after } : {}) });
    const response = await fetch(`${url}/api/phrases?${params}`);
    if (!response.ok) throw new Error(`GET /api/phrases: ${response.status} ${await response.text()}`);
    const page = await response.json();
    phrases.push(...page.phrases);
    if (!page.next) return phrases;
    after = page.next;
  }
}
