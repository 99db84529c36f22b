// The UI for development: built into a folder of its own (dist-dev/; dist/
// stays the release build the binary embeds) and built again on every edit
// under src/, for a host started with --ui-dir to take up (scripts/dev runs
// both). A rebuild redoes only what an edit can change: esbuild's incremental
// contexts rebuild the two bundles, Tailwind scans the changed files, and the
// art is drawn again only when src/art changes. The display font is subset
// once; the cards' fonts are not made at all (the host draws cards with the
// binary's). Every file of a build is written before its manifest.json, which
// is renamed into place last, so a host that reloads on a new manifest never
// reads half a build. The bundles are not minified, so a render's stack names
// the component, and the client's React is its development build; the stylesheet
// is minified, as in a release.
//
// Usage: node dev.mjs [--out DIR]
import { existsSync, readFileSync, readdirSync, statSync, watch } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import {
  Tailwind,
  buildArt,
  buildFont,
  clientEntry,
  clientOptions,
  loadArt,
  manifestOf,
  manifestText,
  serverOptions,
  stylesheet,
  uiDir,
} from "./build.mjs";

/** How long after an edit's last file event the rebuild starts: an editor's save is several events. */
const SETTLE_MS = 25;

const srcDir = path.join(uiDir, "src");
const artDir = path.join(srcDir, "art");

/**
 * Builds the UI into `out`, then again after every edit under src/ until
 * `close()`. Resolves once the first build is written. `log` gets a line per
 * build: what it took and what it wrote, or why it failed.
 */
export async function watchUi({ out = path.join(uiDir, "dist-dev"), log = console.log } = {}) {
  const assetsDir = path.join(out, "assets");
  await rm(out, { recursive: true, force: true });
  await mkdir(assetsDir, { recursive: true });
  let font = await buildFont(out);
  const tailwind = await Tailwind.start();
  let art;
  let bundles = [];
  /** src/art drawn, and the bundles' contexts made for where its pictures are. */
  async function drawArt() {
    art = await buildArt(await loadArt(), out);
    await Promise.all(bundles.map((context) => context.dispose()));
    // The client runs React's development build, whose warnings (a hydration mismatch
    // with the text that differs, a missing key) a production build reduces to an error
    // number. The server's stays production: its console goes nowhere.
    const client = clientOptions(art, out);
    const development = { ...client.define, "process.env.NODE_ENV": '"development"' };
    bundles = await Promise.all(
      [serverOptions(art, out), { ...client, define: development }].map((options) =>
        esbuild.context({ ...options, minify: false, write: false }),
      ),
    );
  }
  await drawArt();

  /**
   * The files under assets/ of the last build: kept through the next one (a page
   * rendered before it may still ask for them), removed after.
   */
  let kept = new Set();
  let written = { server: null, manifest: null };

  /** One build, after `changed` (absolute paths; none for the first). */
  async function build(changed) {
    const started = performance.now();
    // dist-dev/ removed or emptied under the loop (a clean-up): all of it is made again.
    const lost =
      written.manifest !== null &&
      !(existsSync(path.join(out, "manifest.json")) && existsSync(path.join(assetsDir, font)));
    if (lost) {
      await mkdir(assetsDir, { recursive: true });
      font = await buildFont(out);
      written = { server: null, manifest: null };
      kept = new Set();
    }
    if (lost || changed.some((file) => file === artDir || file.startsWith(artDir + path.sep))) await drawArt();
    const [server, client, css] = await Promise.all([
      bundles[0].rebuild(),
      bundles[1].rebuild(),
      tailwind.update(changed).then((tailwindCss) => stylesheet(font, tailwindCss)),
    ]);
    const files = new Map(client.outputFiles.map((file) => [path.relative(assetsDir, file.path), file.contents]));
    files.set(css.name, css.css);
    // Content-hashed: a file already there holds these very bytes.
    for (const [name, contents] of files) {
      const file = path.join(assetsDir, name);
      if (!existsSync(file)) await writeFile(file, contents);
    }
    const serverJs = server.outputFiles[0].text;
    const manifest = manifestText(manifestOf(clientEntry(client), css.name, font, art));
    if (serverJs === written.server && manifest === written.manifest) {
      log(`unchanged (${Math.round(performance.now() - started)} ms)`);
      return;
    }
    await replace(path.join(out, "server.js"), serverJs);
    await replace(path.join(out, "manifest.json"), manifest);
    written = { server: serverJs, manifest };
    const current = new Set([...files.keys(), font, ...Object.values(art)]);
    for (const name of await readdir(assetsDir)) {
      if (!current.has(name) && !kept.has(name)) await rm(path.join(assetsDir, name), { force: true });
    }
    kept = current;
    const { js } = JSON.parse(manifest);
    log(`built in ${Math.round(performance.now() - started)} ms: server.js, ${js}, ${css.name}`);
  }

  await build([]);

  const pending = new Set();
  let timer = null;
  let running = null;
  function next() {
    if (running || pending.size === 0) return;
    const changed = [...pending];
    pending.clear();
    running = build(changed)
      .catch((error) => log(`the build failed (${firstError(error)}); the host keeps the last one`))
      .finally(() => {
        running = null;
        next();
      });
  }
  const watcher = watchTree(srcDir, (file) => {
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(next, SETTLE_MS);
  });

  return {
    /** Stops watching, waits for a build under way, and stops esbuild. */
    async close() {
      watcher.close();
      clearTimeout(timer);
      pending.clear();
      await running;
      await Promise.all(bundles.map((context) => context.dispose()));
      const services = serviceProcesses();
      await esbuild.stop();
      // esbuild's stop signals its service and returns: a caller that exits at once
      // would leave it running a moment past its own end.
      for (let waited = 0; waited < 2000 && services.some(isRunning); waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** The esbuild service processes this process started (Linux; elsewhere none are known). */
function serviceProcesses() {
  const tasks = `/proc/${process.pid}/task`;
  if (!existsSync(tasks)) return [];
  const children = readdirSync(tasks).flatMap((task) => {
    try {
      return readFileSync(`${tasks}/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "esbuild";
    } catch {
      return false;
    }
  });
}

/** Whether process `pid` has not yet exited (a zombie not yet reaped counts as exited). */
function isRunning(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Calls `onChange(path)` for each file or folder created, written, renamed or
 * removed below `root`. One watch per folder: fs.watch's recursive mode on
 * Linux watches each file, and loses one that an editor replaces by renaming
 * a new file over it (vim, sed -i). A folder made later is watched from when
 * its creation is seen.
 */
export function watchTree(root, onChange) {
  const watchers = new Map();
  function add(dir) {
    if (watchers.has(dir)) return;
    let watcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name && editorFile(name)) return;
        const changed = name ? path.join(dir, name) : dir;
        const stat = statSync(changed, { throwIfNoEntry: false });
        if (stat?.isDirectory()) add(changed);
        else if (!stat) forget(changed);
        onChange(changed);
      });
    } catch {
      return; // gone already
    }
    watcher.on("error", () => forget(dir));
    watchers.set(dir, watcher);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) add(path.join(dir, entry.name));
    }
  }
  /** Stops watching a removed folder and the folders below it, so one made again in its place is watched. */
  function forget(dir) {
    for (const [watched, watcher] of watchers) {
      if (watched === dir || watched.startsWith(dir + path.sep)) {
        watcher.close();
        watchers.delete(watched);
      }
    }
  }
  add(root);
  return {
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/**
 * A file an editor keeps beside the one being edited (vim's .swp and its 4913 probe,
 * emacs's .#lock and #autosave#, a backup~): its churn while typing is not an edit.
 */
export function editorFile(name) {
  const base = path.basename(name);
  return base.startsWith(".") || base.endsWith("~") || base === "4913" || /^#.*#$/.test(base);
}

/** What stopped a build, in a line: esbuild's first error (it printed them all), or the message's first line. */
function firstError(error) {
  return error.errors?.[0]?.text ?? error.message.split("\n")[0];
}

/** Writes `file` whole under another name and renames it into place. */
async function replace(file, contents) {
  const partial = `${file}.partial`;
  await writeFile(partial, contents);
  await rename(partial, file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(uiDir, "dev.mjs")) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const ui = await watchUi({ out: values.out && path.resolve(values.out), log: (line) => console.log(`ui: ${line}`) });
  console.log("ui: watching src/ (Ctrl-C stops)");
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => ui.close().then(() => process.exit(0)));
}
