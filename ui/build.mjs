// Builds dist/: the art (drawn by src/art), the display font, the server
// renderer, the hashed client assets, their precompressed copies and the
// manifest the host reads to link them; og.svg and icon.svg for the host
// to rasterise; and card/, the backdrop and fonts of the phrase cards the
// host draws at run time.
//
// `node build.mjs` makes the whole of dist/; dev.mjs imports the steps below
// to rebuild what an edit changed into a folder of its own.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { compile, optimize } from "@tailwindcss/node";
import { Scanner } from "@tailwindcss/oxide";
import * as esbuild from "esbuild";
import fontverter from "fontverter";
import subsetFont from "subset-font";

export const uiDir = path.dirname(fileURLToPath(import.meta.url));
const distDir = path.join(uiDir, "dist");
const assetsDir = path.join(distDir, "assets");
const stylesInput = path.join(uiDir, "src", "styles.css");
const displayFontSource = path.join(uiDir, "node_modules", "@fontsource", "archivo-black", "files", "archivo-black-latin-400-normal.woff2");

/**
 * What the display face is cut down to: printable ASCII and Latin-1, the
 * typographic quotes, dashes and ellipsis. That covers our copy and most
 * phrases typed in Latin script; any other character falls back to the next
 * face of `--font-display`, one character at a time.
 */
const DISPLAY_FONT_RANGES = [
  [0x20, 0x7e],
  [0xa0, 0xff],
  [0x2013, 0x2014],
  [0x2018, 0x201a],
  [0x201c, 0x201e],
  [0x2026, 0x2026],
];

/**
 * The faces the host lays a phrase's card out with, in the order it falls back
 * through them character by character: the display face (whole, Latin and
 * Latin Extended), then Noto Sans Black for the other alphabets (Cyrillic,
 * Greek, Vietnamese, Devanagari), Noto Sans Arabic, Hebrew and Thai, the
 * scripts of South Asia, the Caucasus, Ethiopia and South-East Asia
 * (`NOTO_SCRIPTS`, each its own Noto Sans), Noto Sans SC (Chinese, kana;
 * Google's slices of it, each a face of its own), the
 * slices of Noto Sans KR that hold Hangul (its Hanja are SC's), and Noto Emoji
 * (monochrome, like the ink of the lettering). All SIL OFL, from npm
 * @fontsource; the host's fonts must be TrueType, so each woff2 is unpacked
 * and then brotli-compressed for the binary (the host unpacks them once, on
 * the first card). `ranges` keeps only the slices whose `unicode-range` (in
 * the package's CSS) meets one of them.
 */
const HANGUL = [
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xac00, 0xd7a3],
];
const NOTO_SCRIPTS = [
  "bengali", "tamil", "telugu", "gujarati", "gurmukhi", "kannada", "malayalam", "oriya", "sinhala",
  "georgian", "armenian", "ethiopic", "khmer", "lao", "myanmar",
];
const CARD_FONTS = [
  { dir: "archivo-black", files: /^archivo-black-(latin|latin-ext)-400-normal\.woff2$/ },
  { dir: "noto-sans", files: /^noto-sans-(latin|latin-ext|cyrillic|cyrillic-ext|greek|greek-ext|vietnamese|devanagari)-900-normal\.woff2$/ },
  { dir: "noto-sans-arabic", files: /^noto-sans-arabic-arabic-900-normal\.woff2$/ },
  { dir: "noto-sans-hebrew", files: /^noto-sans-hebrew-hebrew-900-normal\.woff2$/ },
  { dir: "noto-sans-thai", files: /^noto-sans-thai-thai-900-normal\.woff2$/ },
  ...NOTO_SCRIPTS.map((script) => ({
    dir: `noto-sans-${script}`,
    files: new RegExp(`^noto-sans-${script}-${script}-900-normal\\.woff2$`),
  })),
  { dir: "noto-sans-sc", files: /^noto-sans-sc-\d+-900-normal\.woff2$/ },
  { dir: "noto-sans-kr", files: /^noto-sans-kr-\d+-900-normal\.woff2$/, ranges: { css: "900.css", keep: HANGUL } },
  { dir: "noto-emoji", files: /^noto-emoji-\d+-700-normal\.woff2$/ },
];

export const shared = {
  bundle: true,
  minify: true,
  target: "es2020",
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
  absWorkingDir: uiDir,
};

/** The drawing code of src/art, bundled for Node and imported. */
export async function loadArt() {
  const bundled = await esbuild.build({
    ...shared,
    entryPoints: ["src/art/render.ts"],
    format: "esm",
    platform: "node",
    write: false,
    minify: false,
  });
  const source = bundled.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
}

/**
 * Draws every picture of src/art into a content-hashed file under `dist`'s
 * assets/ and returns `{name: file}`. The bundles get that map as
 * `__ART_FILES__`, so they have to be built after this.
 */
export async function buildArt(art, dist = distDir) {
  const files = {};
  for (const [name, svg] of art.renderCatalog()) {
    const file = `${name}-${contentHash(svg)}.svg`;
    await writeFile(path.join(dist, "assets", file), svg);
    files[name] = file;
  }
  await writeFile(path.join(dist, "og.svg"), art.RASTER_SOURCES.og());
  await writeFile(path.join(dist, "icon.svg"), art.RASTER_SOURCES.icon());
  return files;
}

/** What both bundles are told at build time: where each picture was written. */
function artDefine(files) {
  return { ...shared.define, __ART_FILES__: JSON.stringify(files) };
}

/**
 * dist/card/: the cards' backdrop and their fonts, numbered in fallback order
 * (`00042-noto-sans-sc-97.ttf.br`), and a hash of both (`version`), for
 * server/build.rs to embed. Not under
 * assets/: the host uses them, it does not serve them.
 */
async function buildCard(art) {
  const cardDir = path.join(distDir, "card");
  const fontsDir = path.join(cardDir, "fonts");
  await mkdir(fontsDir, { recursive: true });
  const backdrop = art.CARD_SOURCES.backdrop();
  await writeFile(path.join(cardDir, "backdrop.svg"), backdrop);
  // What every card's validator includes: a change to the backdrop or a font changes them all.
  const version = createHash("sha256").update(backdrop);
  let index = 0;
  for (const { dir, files, ranges } of CARD_FONTS) {
    const fontsource = path.join(uiDir, "node_modules", "@fontsource", dir);
    const source = path.join(fontsource, "files");
    const wanted = ranges ? await slicesMeeting(path.join(fontsource, ranges.css), ranges.keep) : null;
    const names = (await readdir(source))
      .filter((name) => files.test(name) && (!wanted || wanted.has(name)))
      .sort(naturalOrder);
    if (names.length === 0) throw new Error(`no card font in ${source} matches ${files}`);
    for (const name of names) {
      const ttf = await fontverter.convert(await readFile(path.join(source, name)), "truetype");
      version.update(ttf);
      const base = name.replace(/-(400|700|900)-normal\.woff2$/, "");
      await writeFile(path.join(fontsDir, `${String(index).padStart(5, "0")}-${base}.ttf.br`), packFont(ttf));
      index += 1;
    }
  }
  await writeFile(path.join(cardDir, "version"), version.digest("hex").slice(0, 16));
}

/**
 * The woff2 files a fontsource stylesheet gives a `unicode-range` meeting one
 * of `keep` (`[first, last]` code points).
 */
async function slicesMeeting(cssFile, keep) {
  const css = await readFile(cssFile, "utf8");
  const wanted = new Set();
  for (const [, block] of css.matchAll(/@font-face\s*{([^}]*)}/g)) {
    const file = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(block)?.[1];
    const range = /unicode-range:([^;]+);/.exec(block)?.[1];
    if (!file || !range) continue;
    const meets = range.split(",").some((part) => {
      const [first, last = first] = part.trim().replace(/^U\+/i, "").split("-").map((hex) => Number.parseInt(hex, 16));
      return keep.some(([from, to]) => first <= to && last >= from);
    });
    if (meets) wanted.add(file);
  }
  if (wanted.size === 0) throw new Error(`no slice in ${cssFile} meets the ranges asked for`);
  return wanted;
}

/** Names with numbers in numeric order: `sc-2` before `sc-10`. */
function naturalOrder(a, b) {
  return a.localeCompare(b, "en", { numeric: true });
}

/** esbuild's options for the server renderer, written to `dist`/server.js. */
export function serverOptions(artFiles, dist = distDir) {
  return {
    ...shared,
    define: artDefine(artFiles),
    entryPoints: ["src/server/entry.ts"],
    outfile: path.join(dist, "server.js"),
    format: "iife",
    platform: "neutral",
    mainFields: ["module", "main"],
  };
}

/** esbuild's options for the client, hashed files under `dist`/assets. */
export function clientOptions(artFiles, dist = distDir) {
  return {
    ...shared,
    define: artDefine(artFiles),
    entryPoints: ["src/client.tsx"],
    outdir: path.join(dist, "assets"),
    format: "esm",
    splitting: true,
    platform: "browser",
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    metafile: true,
  };
}

async function buildServer(artFiles) {
  await esbuild.build(serverOptions(artFiles));
}

async function buildClient(artFiles) {
  return clientEntry(await esbuild.build(clientOptions(artFiles)));
}

/** The islands the browser imports when a page has them (src/islands/load.ts), by name. */
const ISLAND_SOURCES = { words: "src/islands/WordsLive.tsx", phrase: "src/islands/PhraseLive.tsx" };

/**
 * The entry file of a client build, the chunks it imports statically, and for each island
 * imported on demand the chunks its import fetches beyond those: what a page with that
 * island preloads.
 */
export function clientEntry(result) {
  const outputs = result.metafile.outputs;
  const outputOf = (source) => {
    const found = Object.entries(outputs).find(([, output]) => output.entryPoint === source);
    if (!found) throw new Error(`esbuild produced no output for ${source}`);
    return found[0];
  };
  /** `file` and every chunk it imports statically, transitively. */
  const closure = (file, into = new Set()) => {
    if (into.has(file)) return into;
    into.add(file);
    for (const imported of outputs[file].imports) {
      if (imported.kind === "import-statement" && !imported.external) closure(imported.path, into);
    }
    return into;
  };
  const entryPath = outputOf("src/client.tsx");
  const loaded = closure(entryPath);
  const islands = Object.fromEntries(
    Object.entries(ISLAND_SOURCES).map(([name, source]) => [
      name,
      [...closure(outputOf(source))].filter((file) => !loaded.has(file)).map((file) => path.basename(file)),
    ]),
  );
  const preload = [...loaded].filter((file) => file !== entryPath).map((file) => path.basename(file));
  return { js: path.basename(entryPath), preload, islands };
}

/**
 * Archivo Black (SIL OFL, from npm @fontsource/archivo-black) subset to
 * DISPLAY_FONT_RANGES as a content-hashed woff2 under `dist`'s assets/.
 * Returns the file's name.
 */
export async function buildFont(dist = distDir) {
  const characters = DISPLAY_FONT_RANGES.flatMap(([first, last]) =>
    Array.from({ length: last - first + 1 }, (_, i) => String.fromCodePoint(first + i)),
  ).join("");
  const font = await subsetFont(await readFile(displayFontSource), characters, { targetFormat: "woff2" });
  const name = `archivo-black-${contentHash(font)}.woff2`;
  await writeFile(path.join(dist, "assets", name), font);
  return name;
}

/**
 * The face's rule, put before Tailwind's output because only the build knows
 * the hashed file name. One black weight serves every weight asked for, so the
 * browser never thickens it; `optional` never swaps the face in after the first
 * paint (the page is preloaded with it, so it is there in time), so nothing
 * shifts.
 */
function fontFace(file) {
  const range = DISPLAY_FONT_RANGES.map(([first, last]) =>
    first === last ? `U+${hex(first)}` : `U+${hex(first)}-${hex(last)}`,
  ).join(",");
  return `@font-face{font-family:"Archivo Black";font-style:normal;font-weight:100 900;font-display:optional;src:url(${file}) format("woff2");unicode-range:${range}}\n`;
}

function hex(codePoint) {
  return codePoint.toString(16).toUpperCase().padStart(4, "0");
}

async function buildCss(font) {
  const tailwind = await Tailwind.start();
  const { name, css } = stylesheet(font, tailwind.css);
  await writeFile(path.join(assetsDir, name), css);
  return name;
}

/**
 * Tailwind in this process, as its CLI runs it: src/styles.css compiled, the
 * sources it names scanned for class names, the CSS built from them. `update`
 * takes the files changed since and scans only those, or starts over when a
 * stylesheet changed, as the CLI's --watch does; dev.mjs calls it for each
 * edit, without a process to start.
 */
export class Tailwind {
  /** The CSS for the sources as last scanned, before minifying. */
  css = "";
  #compiler;
  #scanner;
  /** The stylesheets the CSS is made from: a change to one starts over. */
  #stylesheets = new Set();
  /** The last compile failed (an @import of a file not there yet): the next change starts over, whatever it is. */
  #failed = false;

  static async start() {
    const tailwind = new Tailwind();
    await tailwind.#compile();
    return tailwind;
  }

  async #compile() {
    const stylesheets = new Set([stylesInput]);
    const base = path.dirname(stylesInput);
    try {
      this.#compiler = await compile(await readFile(stylesInput, "utf8"), {
        base,
        onDependency: (file) => stylesheets.add(file),
        customCssResolver: resolveRelative,
      });
    } catch (error) {
      // Those the failed compile reached count too: mending one of them starts over.
      for (const file of stylesheets) this.#stylesheets.add(file);
      this.#failed = true;
      throw error;
    }
    this.#stylesheets = stylesheets;
    this.#failed = false;
    const { root, sources } = this.#compiler;
    const scanned = root === "none" ? [] : root === null ? [{ base, pattern: "**/*" }] : [root];
    this.#scanner = new Scanner({
      sources: [...scanned.map((source) => ({ ...source, negated: false })), ...sources],
    });
    this.css = this.#compiler.build(this.#scanner.scan());
  }

  /** The CSS once `changed` (absolute paths) are taken into account. */
  async update(changed) {
    if (this.#failed || changed.some((file) => this.#stylesheets.has(file))) {
      await this.#compile();
      return this.css;
    }
    const present = changed.filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile());
    const found = this.#scanner.scanFiles(present.map((file) => ({ file, extension: path.extname(file).slice(1) })));
    if (found.length > 0) this.css = this.#compiler.build(found);
    return this.css;
  }
}

/**
 * A stylesheet's relative @import, looked for on disk each time: Tailwind's own resolver
 * remembers for 4 s that a file was not there, so a watcher's compile right after the
 * file is written would still fail. Packages ("tailwindcss") are left to that resolver.
 */
async function resolveRelative(id, base) {
  if (!id.startsWith("./") && !id.startsWith("../")) return undefined;
  const file = path.resolve(base, id);
  for (const candidate of [file, `${file}.css`]) {
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
  }
  return undefined;
}

/**
 * The stylesheet: Tailwind's CSS minified, after the display face's rule;
 * and its content-hashed name.
 */
export function stylesheet(font, tailwindCss) {
  const minified = optimize(tailwindCss, { file: stylesInput, minify: true }).code;
  if (!minified.trim()) throw new Error("tailwindcss produced no CSS");
  const css = `${fontFace(font)}${minified}\n`;
  return { name: `app-${contentHash(css)}.css`, css };
}

/** woff2 is compressed already; everything else gets a brotli and a gzip copy. */
async function precompress() {
  const files = (await listFiles(assetsDir)).filter((file) => !/\.(br|gz|woff2)$/.test(file));
  for (const file of files) {
    const full = path.join(assetsDir, file);
    const content = await readFile(full);
    await writeFile(`${full}.br`, brotli(content));
    await writeFile(`${full}.gz`, gzip(content));
  }
}

async function printSizes(manifest) {
  const art = new Set(Object.values(manifest.art));
  const assets = (await listFiles(assetsDir)).filter((file) => !/\.(br|gz)$/.test(file));
  const rows = [
    path.join("dist", "server.js"),
    ...assets.filter((file) => !art.has(file)).map((file) => path.join("dist", "assets", file)),
  ];
  const width = Math.max(...rows.map((row) => row.length));
  console.log(`${"file".padEnd(width)}  ${"raw".padStart(9)}  ${"gzip".padStart(9)}  ${"brotli".padStart(9)}`);
  for (const row of rows) {
    const content = await readFile(path.join(uiDir, row));
    const sizes = [content.length, gzip(content).length, brotli(content).length];
    console.log(`${row.padEnd(width)}  ${sizes.map((size) => kib(size).padStart(9)).join("  ")}`);
  }
  const artSizes = [0, 0, 0];
  for (const file of art) {
    const content = await readFile(path.join(assetsDir, file));
    [content.length, gzip(content).length, brotli(content).length].forEach((size, i) => (artSizes[i] += size));
  }
  const artRow = `dist/assets/*.svg (${art.size} pictures)`;
  console.log(`${artRow.padEnd(width)}  ${artSizes.map((size) => kib(size).padStart(9)).join("  ")}`);
  const cardFonts = await listFiles(path.join(distDir, "card", "fonts"));
  let cardBytes = 0;
  for (const file of cardFonts) cardBytes += (await readFile(path.join(distDir, "card", "fonts", file))).length;
  console.log(`dist/card/fonts (${cardFonts.length} faces, brotli TrueType for the host): ${kib(cardBytes)}`);
  console.log(`manifest: ${JSON.stringify({ ...manifest, art: `{${art.size} pictures}` })}`);
}

function brotli(content) {
  return brotliCompressSync(content, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 11,
      [zlib.BROTLI_PARAM_SIZE_HINT]: content.length,
    },
  });
}

/**
 * The card fonts, 9 MB of TrueType, packed for the binary. Quality 5 with a 16 MB
 * window comes within 5 % of quality 11's size in a fiftieth of the time (0.3 s
 * against 21 s, most of a UI build), and the host unpacks either as fast.
 */
function packFont(ttf) {
  return brotliCompressSync(ttf, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 5,
      [zlib.BROTLI_PARAM_LGWIN]: 24,
      [zlib.BROTLI_PARAM_SIZE_HINT]: ttf.length,
    },
  });
}

function gzip(content) {
  return gzipSync(content, { level: 9 });
}

export function contentHash(content) {
  return createHash("sha256").update(content).digest("hex").slice(0, 10);
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Files under `dir`, as sorted paths relative to it, so every run walks alike. */
async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** What a rebuild must leave as it was for a path to keep its times: a file's bytes, a folder's names. */
async function contents(full, isFile) {
  return isFile ? createHash("sha256").update(await readFile(full)).digest("hex") : (await readdir(full)).sort().join("\n");
}

/**
 * The modification times of `dir` and of everything under it, with what each holds:
 * what `keepTimes` needs to give unchanged files and folders back their times.
 */
export async function snapshotTimes(dir) {
  const times = new Map();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return times;
  }
  for (const entry of [{ parentPath: dir, name: "", isFile: () => false }, ...entries]) {
    const full = path.join(entry.parentPath, entry.name);
    const { atime, mtime } = await stat(full);
    times.set(full, { atime, mtime, isFile: entry.isFile(), contents: await contents(full, entry.isFile()) });
  }
  return times;
}

/**
 * Gives a file the times it had before the build if its bytes are the same, and a folder
 * if it holds the same names: cargo reruns the host's build script when anything under
 * dist/ is newer than its last run, and a changed host crate relinks every test binary,
 * so a build that changed nothing leaves dist/ as it found it.
 */
export async function keepTimes(before) {
  for (const [full, old] of before) {
    try {
      if ((await contents(full, old.isFile)) === old.contents) await utimes(full, old.atime, old.mtime);
    } catch {
      // Gone from this build.
    }
  }
}

async function main() {
  const before = await snapshotTimes(distDir);
  await rm(distDir, { recursive: true, force: true });
  await mkdir(assetsDir, { recursive: true });
  const drawings = await loadArt();
  const art = await buildArt(drawings);
  await buildCard(drawings);
  await buildServer(art);
  const client = await buildClient(art);
  const font = await buildFont();
  const css = await buildCss(font);
  const manifest = manifestOf(client, css, font, art);
  await precompress();
  // Last: a build stopped before it (Ctrl-C) has no manifest, and scripts/dev builds again.
  await writeFile(path.join(distDir, "manifest.json"), manifestText(manifest));
  await keepTimes(before);
  await printSizes(manifest);
}

/** What the host reads to link a build's files (server/src/render/assets.rs). */
export function manifestOf(client, css, font, art) {
  return { js: client.js, css, preload: client.preload, islands: client.islands, fonts: [font], art };
}

export function manifestText(manifest) {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

// Built when run, not when dev.mjs imports the steps.
if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  await main();
}
