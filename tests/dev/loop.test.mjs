// scripts/dev as a developer uses it, on a free port: an edit to a component, to the
// copy and to the stylesheet is served on the next page load within 2 s by the same
// host process; a change under server/ goes to cargo, and the host is restarted when
// the binary is new; and once it is stopped (Ctrl-C, SIGTERM) nothing it started is
// left running. The edits are made to the checkout's own files and put back whatever
// happens (tests/support/edit.mjs); server/ files are only touched.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll, sleep } from '../support/poll.mjs';
import { createFile, editFile } from '../support/edit.mjs';
import { freePort } from '../support/free-port.mjs';

const root = new URL('../..', import.meta.url).pathname;
/** What the issue asks of the loop: saved to served. */
const SERVED_WITHIN_MS = 2000;
/** A first run builds the host: minutes on a small machine with an empty target folder. */
const STARTED_WITHIN_MS = 20 * 60_000;

test('an edit to a component, the copy or a style is served on the next page load within 2 s, by the same host', { timeout: STARTED_WITHIN_MS + 120_000 }, async (t) => {
  const dev = await startDev(t);
  const home = () => get(`${dev.url}/`);
  const stylesheetOf = async (html) => get(`${dev.url}${/href="(\/assets\/app-[0-9a-f]+\.css)"/.exec(html)[1]}`);
  const before = await home();
  assert.match(before, /NFTs for the climate/);
  // React's development build in the browser: a hydration mismatch says which text differs.
  const client = await get(`${dev.url}${/src="(\/assets\/client-[A-Z0-9]+\.js)"/.exec(before)[1]}`);
  assert.ok(client.includes('react.dev/link/hydration-mismatch'), 'the client runs React\'s development build');

  const timings = {};
  // A component: new words and a class Tailwind has not seen, so its markup and the CSS change.
  timings.component = await servedAfter(
    t,
    'ui/src/components/home/Intro.tsx',
    ['tracking-widest text-accent">{INTRO.eyebrow}</p>', 'tracking-[0.4321em] text-accent">{INTRO.eyebrow} and the loop</p>'],
    async () => {
      const html = await home();
      return html.includes('> and the loop</p>') && html.includes('tracking-[0.4321em]') && (await stylesheetOf(html)).includes('letter-spacing:.4321em');
    },
  );
  // The copy, a data module that components import.
  timings.copy = await servedAfter(t, 'ui/src/data/copy.ts', ['eyebrow: "NFTs for the climate"', 'eyebrow: "NFTs for a cooler climate"'], async () =>
    (await home()).includes('NFTs for a cooler climate'),
  );
  // The stylesheet: Tailwind starts over from it.
  timings.style = await servedAfter(t, 'ui/src/styles.css', ['--color-accent: #22c55e;', '--color-accent: #0a7b3e;'], async () =>
    (await stylesheetOf(await home())).includes('#0a7b3e'),
  );
  // A stylesheet imported before it is written: the build fails, and writing it mends the
  // build, though Tailwind's compile that failed never saw the file.
  const failures = () => dev.count(/ui: the build failed/g);
  const failedBefore = failures();
  const importing = editFile('ui/src/styles.css', (text) => text.replace('source("./");\n', 'source("./");\n@import "./loop-extra.css";\n'));
  t.after(importing);
  await poll(failures, (n) => n === failedBefore + 1, 30_000, () => `the build failing on the missing import:\n${dev.log().slice(-2000)}`);
  const removeExtra = createFile('ui/src/loop-extra.css', '.loop-extra { letter-spacing: 0.0777em; }\n');
  t.after(removeExtra);
  timings.imported = await within(async () => (await stylesheetOf(await home())).includes('.0777em'), 'the imported stylesheet written, served');
  importing();
  removeExtra();
  await within(async () => !(await stylesheetOf(await home())).includes('.0777em'), 'the import taken out, served');

  // ui/dist-dev removed under the loop (a clean-up): the next edit makes all of it again.
  rmSync(join(root, 'ui/dist-dev'), { recursive: true, force: true });
  const copyEdit = editFile('ui/src/data/copy.ts', (text) => text.replace('eyebrow: "NFTs for the climate"', 'eyebrow: "NFTs, made again"'));
  t.after(copyEdit);
  await poll(() => home().catch(() => ''), (html) => html.includes('NFTs, made again'), 30_000, () => `the page after dist-dev was removed:\n${dev.log().slice(-2000)}`);
  const html = await home();
  const font = /url\((archivo-black-[0-9a-f]+\.woff2)\)/.exec(await stylesheetOf(html));
  assert.ok(font, 'the stylesheet names the display font');
  assert.equal((await fetch(`${dev.url}/assets/${font[1]}`)).status, 200, 'and the font is there');
  copyEdit();
  await within(async () => !(await home()).includes('NFTs, made again'), 'the copy put back, served');

  // A type error: served all the same (esbuild strips types), and said by the loop. (The
  // checker may have read a file half written by an edit above: it says so, then mends.)
  const lastVerdict = () => [...dev.log().matchAll(/types: (no errors|\d+ errors?)/g)].at(-1)?.[1];
  await poll(lastVerdict, (verdict) => verdict === 'no errors', 60_000, () => `the type check of the files as they are:\n${dev.log().slice(-2000)}`);
  const cleanBefore = dev.count(/types: no errors/g);
  const typedAt = dev.log().length;
  const typed = editFile('ui/src/data/copy.ts', (text) => `${text}\nexport const loopWrong: number = "not a number";\n`);
  t.after(typed);
  await poll(() => dev.log().slice(typedAt), (log) => /types: ui\/src\/data\/copy\.ts\(\d+,\d+\): error TS2322/.test(log), 60_000, () => `the type error said:\n${dev.log().slice(-2000)}`);
  assert.equal((await fetch(`${dev.url}/`)).status, 200, 'the page is served all the same');
  typed();
  await poll(() => dev.count(/types: no errors/g), (n) => n > cleanBefore, 60_000, () => `the type error mended, said:\n${dev.log().slice(-2000)}`);

  t.diagnostic(`saved to served, ms (edit, then put back): ${JSON.stringify(timings)}`);
  t.diagnostic(`of which the UI builds and the host taking them up: ${dev.log().match(/ui: built in \d+ ms|took_ms=\d+/g)?.slice(1).join(', ')}`);
  assert.equal(await home(), before, 'with every file put back, the page is what it was');
  assert.deepEqual(dev.hostPids(), [dev.hostPids()[0]], 'the host was never restarted');
  assert.ok(isAlive(dev.hostPids()[0]), 'the host still runs');

  // A change under server/ that is not part of the binary: cargo runs, the binary stays
  // as it was, so the host is not restarted. (One that is: the next test.)
  const attempts = dev.count(/dev: building the host/g);
  // An editor's swap, probe and backup files beside the code are not a change to it.
  const editorFiles = ['server/src/.site.rs.swp', 'server/src/4913', 'server/src/site.rs~'].map((file) => createFile(file, 'x'));
  await sleep(1000);
  editorFiles.forEach((remove) => remove());
  await sleep(1000);
  assert.equal(dev.count(/dev: building the host/g), attempts, 'an editor\'s own files built the host');
  const touched = join(root, 'server/tests/host/common.rs');
  utimesSync(touched, new Date(), new Date());
  await poll(() => dev.count(/the binary is as it was/g), (n) => n === 1, 600_000, 'scripts/dev to build the host after a change under server/');
  assert.equal(dev.count(/dev: building the host/g), attempts + 1);
  assert.equal(dev.hostPids().length, 1, dev.log());

  await dev.stopLeavingNothing('SIGINT');
});

test('a change to the host\'s code rebuilds it and restarts it on the same port, even one picked with --port 0; SIGTERM stops it all', { timeout: 2 * STARTED_WITHIN_MS }, async (t) => {
  const dev = await startDev(t, 0);
  const [first] = dev.hostPids();
  // A second scripts/dev from the same checkout would build into the same ui/dist-dev.
  const second = spawnDev(t, await freePort());
  await poll(() => second.child.exitCode, (code) => code !== null, 30_000, () => `the second scripts/dev to stop:\n${second.log().slice(-2000)}`);
  assert.equal(second.child.exitCode, 1);
  assert.match(second.log(), new RegExp(`another scripts/dev \\(pid ${dev.pid}\\) runs from this checkout`));
  assert.match(await get(`${dev.url}/`), /NFTs for the climate/, 'the first goes on serving');
  // Touched, not changed: cargo builds the crate again (seconds with incremental builds,
  // a minute or so without), and the binary it makes behaves as the one the other tests use.
  utimesSync(join(root, 'server/src/site.rs'), new Date(), new Date());
  await poll(() => dev.hostPids().length, (n) => n === 2, STARTED_WITHIN_MS, () => `a restarted host:\n${dev.log().slice(-2000)}`);
  assert.ok(!isAlive(first), 'the old host stopped');
  await poll(() => fetch(`${dev.url}/`).then((r) => r.status, () => 0), (status) => status === 200, 30_000, 'the restarted host to answer on the same port');
  assert.match(await get(`${dev.url}/`), /NFTs for the climate/);
  await dev.stopLeavingNothing('SIGTERM');
});

test('a restart while the UI bundle cannot load: the host that stops on it starts again on the build that mends it', { timeout: 2 * STARTED_WITHIN_MS }, async (t) => {
  const dev = await startDev(t);
  const restore = editFile('ui/src/data/copy.ts', (text) => `${text}\nif (BRAND) throw new Error("broken on purpose");\n`);
  t.after(restore);
  await poll(() => /the new UI build was not taken up/.test(dev.log()), Boolean, 30_000, () => dev.log().slice(-2000));
  assert.equal((await fetch(`${dev.url}/`)).status, 200, 'the last good build is still served');
  utimesSync(join(root, 'server/src/site.rs'), new Date(), new Date());
  await poll(() => /the host exited \(code 1\)/.test(dev.log()), Boolean, STARTED_WITHIN_MS, () => `the restarted host stopping on the bundle:\n${dev.log().slice(-2000)}`);
  restore();
  await poll(() => fetch(`${dev.url}/`).then((r) => r.status, () => 0), (status) => status === 200, 30_000, () => `the host started again on the mended build:\n${dev.log().slice(-2000)}`);
  assert.match(dev.log(), /dev: a new UI build: starting the host again/);
  assert.match(await get(`${dev.url}/`), /NFTs for the climate/);
  await dev.stopLeavingNothing('SIGTERM');
});

test('a host that cannot start (its port taken) stops scripts/dev with the reason, leaving nothing running', { timeout: STARTED_WITHIN_MS + 60_000 }, async (t) => {
  const taken = createServer();
  const port = await freePort();
  await new Promise((resolve) => taken.listen(port, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const dev = spawnDev(t, port);
  await poll(() => /dev: host started/.test(dev.log()) || dev.child.exitCode !== null, Boolean, STARTED_WITHIN_MS, () => dev.log().slice(-3000));
  const started = descendants(dev.child.pid);
  await poll(() => dev.child.exitCode, (code) => code !== null, 60_000, () => `scripts/dev to stop:\n${dev.log().slice(-2000)}`);
  assert.equal(dev.child.exitCode, 1, dev.log().slice(-2000));
  assert.match(dev.log(), /cannot listen on 127\.0\.0\.1:\d+/);
  assert.match(dev.log(), /dev: the host could not start \(exit 1\): stopping/);
  assert.deepEqual(started.filter(({ pid, since }) => isAlive(pid, since)), [], 'left running');
});

/**
 * Edits `file` (`[from, to]`, each once in it), waits until `served()` holds, puts the
 * file back and waits until `served()` no longer does; each must take under 2 s from
 * the write. Resolves to the two times.
 */
async function servedAfter(t, file, [from, to], served) {
  const restore = editFile(file, (text) => {
    assert.equal(text.split(from).length, 2, `${file} holds ${from} once`);
    return text.replace(from, to);
  });
  t.after(restore);
  const edited = await within(served, `${file} edited, served`);
  restore();
  const back = await within(async () => !(await served()), `${file} put back, served`);
  return [edited, back];
}

/** Asks `check` every 20 ms until it holds; fails after 2 s. Resolves to the time it took. */
async function within(check, what) {
  const started = performance.now();
  for (;;) {
    if (await check()) return Math.round(performance.now() - started);
    const took = performance.now() - started;
    if (took > SERVED_WITHIN_MS) assert.fail(`${what}: not within ${SERVED_WITHIN_MS} ms`);
    await sleep(20);
  }
}

/** scripts/dev on `port` (a free one if not given) with a data folder of its own, serving; stopped after the test if it still runs. */
async function startDev(t, port) {
  port ??= await freePort();
  const { child, exited, log } = spawnDev(t, port);
  await poll(() => /serving url=/.test(log()) || child.exitCode !== null, Boolean, STARTED_WITHIN_MS, () => `scripts/dev to serve:\n${log().slice(-3000)}`);
  assert.equal(child.exitCode, null, `scripts/dev exited:\n${log()}`);
  if (port === 0) port = Number(/dev: port 0: serving on (\d+), kept across restarts/.exec(log())[1]);
  const url = `http://127.0.0.1:${port}`;
  const hostPids = () => [...log().matchAll(/dev: host started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  return {
    url,
    pid: child.pid,
    log,
    hostPids,
    count: (pattern) => [...log().matchAll(pattern)].length,
    /** Sends `signal`, waits for scripts/dev to exit, and checks that none of what it had started runs. */
    async stopLeavingNothing(signal) {
      const started = descendants(child.pid);
      const names = started.map(({ name }) => name);
      assert.ok(names.includes('lastwords') && names.includes('esbuild'), `scripts/dev runs the host and esbuild: ${names}`);
      child.kill(signal);
      const { code } = await exited;
      assert.ok(code === 0 || code === 130, `scripts/dev exited with ${code}:\n${log().slice(-2000)}`);
      const left = started.filter(({ pid, since }) => isAlive(pid, since));
      assert.deepEqual(left, [], `left running after ${signal}`);
      assert.doesNotMatch(log(), /panicked/);
    },
  };
}

/** scripts/dev asked to serve on `port` with a data folder of its own; stopped after the test if it still runs. */
function spawnDev(t, port) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-dev-'));
  const child = spawn(join(root, 'scripts/dev'), ['--port', String(port), '--data-dir', dataDir, '--rate-limit-per-s', '0'], {
    cwd: root,
    // The suites' build of the host (dev profile, with Firestore), which scripts/test has
    // just made, not scripts/dev's own (quick profile, without), which would compile every
    // crate again.
    env: { ...process.env, NO_COLOR: '1', RUST_LOG: 'info', CARGO_TERM_COLOR: 'never', HOST_PROFILE: 'dev', HOST_FEATURES: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { child, exited, log: () => log };
}

function get(url) {
  return fetch(url).then((response) => {
    assert.equal(response.status, 200, url);
    return response.text();
  });
}

/** `/proc/<pid>/stat`'s command name, parent, state and start time, or null once it is gone. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, name, state: fields[0], ppid: Number(fields[1]), since: fields[19] };
  } catch {
    return null;
  }
}

/** Every process below `pid`, with its name and start time (so a reused pid is not taken for it). */
function descendants(pid) {
  const all = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map((name) => stat(Number(name))).filter(Boolean);
  const below = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (const process of all.filter(({ ppid }) => ppid === parent)) {
      below.push({ pid: process.pid, name: process.name, since: process.since });
      parents.push(process.pid);
    }
  }
  return below;
}

/** Whether `pid` runs (a zombie does not), and is still the process that started at `since`. */
function isAlive(pid, since) {
  const now = stat(pid);
  return now !== null && now.state !== 'Z' && (since === undefined || now.since === since);
}
