// scripts/dev's work (docs/development.md): the UI built into ui/dist-dev and
// again on every edit (ui/dev.mjs), the debug host serving it with --ui-dir,
// which takes up each new build without a restart; a change under server/,
// to Cargo.toml or Cargo.lock, or under assets/ builds the host again and,
// once that succeeded and the binary is new, restarts it. The arguments go to
// `lastwords serve` (--port N). SIGINT, SIGTERM or SIGHUP stops the host, a
// cargo build under way and the UI's watcher, and exits once they are gone.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, unlinkSync, watch, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { watchTree, watchUi } from "../ui/dev.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The host's binary, where scripts/build-host last said it built it (scripts/run's, unless HOST_PROFILE or HOST_FEATURES name another). */
let binary = null;
const uiOut = path.join(root, "ui", "dist-dev");
/** What the host is built from, besides server/: a change here builds it again. */
const rootFiles = new Set(["Cargo.toml", "Cargo.lock"]);
/** How long after the last file event of an edit the host is built. */
const SETTLE_MS = 200;
/** How long a stopped host or cargo has to exit before it is killed. */
const STOP_GRACE_MS = 10_000;

const say = (line) => console.log(`dev: ${line}`);

/**
 * The arguments for `lastwords serve`, with a port of 0 (`--port 0`, or PORT=0 and no
 * --port) made a free one picked once: each restart would otherwise move the site
 * from under the browser's tab.
 */
async function serveArgs(args) {
  const at = args.findIndex((arg) => arg === "--port" || arg.startsWith("--port="));
  const given = at < 0 ? process.env.PORT : args[at] === "--port" ? args[at + 1] : args[at].slice("--port=".length);
  if (given === undefined || Number(given) !== 0 || given.trim() === "") return args;
  const port = await new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  say(`port 0: serving on ${port}, kept across restarts`);
  const rest = at < 0 ? args : args.filter((_, i) => i !== at && !(args[at] === "--port" && i === at + 1));
  return [...rest, "--port", String(port)];
}
const hostArgs = await serveArgs(process.argv.slice(2));

/**
 * One scripts/dev per checkout: a second would build into the same ui/dist-dev as the
 * first, and each would delete the other's files. The lock names the process holding it;
 * one whose process is gone is taken over.
 */
const lockFile = path.join(root, "ui", "dist-dev.lock");
const readOr = (file, fallback) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
};
function lock() {
  for (;;) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx" });
      process.on("exit", () => {
        if (readOr(lockFile, "").trim() === String(process.pid)) unlinkSync(lockFile);
      });
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const holder = readOr(lockFile, "").trim();
    if (/^\d+$/.test(holder) && readOr(`/proc/${holder}/cmdline`, "").includes("dev.mjs")) {
      say(`another scripts/dev (pid ${holder}) runs from this checkout and builds into ui/dist-dev: stop it first`);
      process.exit(1);
    }
    unlinkSync(lockFile);
  }
}
lock();

/** Children still running, each with the promise of its exit. */
const children = new Map();
let host = null;
let stopping = false;

/**
 * Starts `command`, its output on ours; `exited` resolves with its exit code.
 * It leads a process group of its own: a terminal's Ctrl-C reaches only this
 * script, which stops each child once, and stopping cargo stops the compilers
 * it started.
 */
function run(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit", detached: true, ...options });
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
    child.once("error", (error) => {
      children.delete(child);
      say(`cannot run ${command}: ${error.message}`);
      resolve(127);
    });
  });
  children.set(child, exited);
  return { child, exited };
}

/** Sends `name` to `child`'s process group. */
function signal(child, name) {
  try {
    process.kill(-child.pid, name);
  } catch {
    // gone already
  }
}

/** Stops `child` and waits for it to exit; killed if it takes too long. */
async function stop(child) {
  const exited = children.get(child);
  if (!exited) return;
  signal(child, "SIGTERM");
  const timer = setTimeout(() => signal(child, "SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** The host's build (scripts/build-host); true if it succeeded. */
async function buildHost() {
  say("building the host (scripts/build-host)");
  const { child, exited } = run(path.join(root, "scripts", "build-host"), [], { stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  child.stdout.on("data", (chunk) => (printed += chunk));
  // 'exit' can come before the last of the output has been read.
  const read = new Promise((resolve) => {
    child.stdout.once("close", resolve);
    child.once("error", resolve);
  });
  const [code] = await Promise.all([exited, read]);
  if (code !== 0 && !stopping) say(`cargo build failed (exit ${code})`);
  if (code === 0) binary = printed.trim();
  return code === 0;
}

let hostsStarted = 0;
function startHost() {
  const first = hostsStarted++ === 0;
  const started = run(binary, ["serve", "--ui-dir", uiOut, ...hostArgs]);
  host = started.child;
  say(`host started (pid ${host.pid})`);
  started.exited.then((code) => {
    if (host !== started.child) return;
    host = null;
    if (stopping) return;
    // A port already taken or a mistyped argument is not mended by an edit under server/,
    // and a loop left waiting would build into ui/dist-dev beside the one that serves.
    if (first && code !== 0) {
      void shutdown(`the host could not start (exit ${code})`, 1);
      return;
    }
    say(`the host exited (code ${code}); it starts again after the next change under server/ or the next UI build`);
  });
}

/** What tells one build of the binary from the next. */
function binaryStamp() {
  const stat = binary && statSync(binary, { throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : null;
}

/** Builds the host (at start, after a change) and (re)starts it if the binary is new. */
async function rebuild() {
  const before = binaryStamp();
  if (!(await buildHost()) || stopping) {
    if (!stopping) say(host ? "the running host goes on serving" : "waiting for a change under server/ to build again");
    return;
  }
  if (host && binaryStamp() === before) {
    say("the binary is as it was: the host goes on serving");
    return;
  }
  if (host) {
    say(`restarting the host (pid ${host.pid})`);
    const old = host;
    host = null;
    await stop(old);
  }
  if (!stopping) startHost();
}

let ui = null;
let serverWatch = null;
async function shutdown(reason, code = reason === "SIGINT" ? 130 : 0) {
  if (stopping) return;
  stopping = true;
  say(`${reason}: stopping`);
  serverWatch?.close();
  await Promise.all([...children.keys()].map(stop));
  await ui?.close();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => shutdown(signal));
// Whatever ends this process, nothing it started outlives it.
process.on("exit", () => {
  for (const child of children.keys()) signal(child, "SIGKILL");
});

// The binary embeds a release UI build for the icons and the cards' art: make
// one if there is none (the first time only; it takes half a minute or more).
if (!existsSync(path.join(root, "ui", "dist", "manifest.json"))) {
  say("building the UI once for the binary (ui/dist)");
  const { exited } = run(process.execPath, ["build.mjs"], { cwd: path.join(root, "ui") });
  if ((await exited) !== 0) {
    say("the UI build failed");
    process.exit(1);
  }
}

try {
  ui = await watchUi({
    out: uiOut,
    log: (line) => {
      console.log(`ui: ${line}`);
      // A host that stopped on a UI bundle that would not load (a restart while it was
      // broken) starts again on the build that mends it, not only after a Rust edit.
      if (hostsStarted > 0 && !stopping && !host && !building && line.startsWith("built ")) {
        say("a new UI build: starting the host again");
        startHost();
      }
    },
  });
} catch (error) {
  say(`the first UI build failed (${error.errors?.[0]?.text ?? error.message.split("\n")[0]}): fix it and start again`);
  process.exit(1);
}
// A signal came during the first build: shutdown() ends the process, nothing more starts.
if (stopping) await new Promise(() => {});

/**
 * TypeScript's checker watching ui/src beside the build: esbuild strips the types without
 * reading them, so a type error is served as it is, and said here, not first by scripts/test.
 */
function checkTypes() {
  const tsc = path.join(root, "ui", "node_modules", "typescript", "bin", "tsc");
  const { child } = run(process.execPath, [tsc, "--noEmit", "--watch", "--preserveWatchOutput", "--pretty", "false"], {
    cwd: path.join(root, "ui"),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let clean = null;
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) {
      const found = /Found (\d+) errors?\./.exec(line);
      if (found) {
        const now = found[1] === "0";
        if (!now) console.log(`types: ${found[1]} error${found[1] === "1" ? "" : "s"} (the page is served all the same)`);
        else if (clean !== true) console.log("types: no errors");
        clean = now;
      } else if (/error TS\d+/.test(line)) {
        console.log(`types: ui/${line}`);
      } else if (/^\s/.test(line)) {
        console.log(`types: ${line}`);
      }
    }
  });
}
checkTypes();

/** One build of the host at a time: a change during one builds again after it. */
let queued = false;
let building = null;
let timer = null;
function changed(delay = SETTLE_MS) {
  clearTimeout(timer);
  timer = setTimeout(() => {
    if (building) {
      queued = true;
      return;
    }
    building = rebuild().finally(() => {
      building = null;
      if (queued && !stopping) {
        queued = false;
        changed();
      }
    });
  }, delay);
}
const watches = [
  watchTree(path.join(root, "server"), () => changed()),
  watchTree(path.join(root, "assets"), () => changed()),
  // The root for its own files only: not the target folder or node_modules below it.
  watch(root, (_event, name) => {
    if (rootFiles.has(name)) changed();
  }),
];
serverWatch = { close: () => watches.forEach((watcher) => watcher.close()) };

say("watching ui/src (taken up on the next page load, its types checked) and server/ (rebuilt, restarted); Ctrl-C stops");
changed(0);
