/// <reference types="node" />
import { readFileSync } from "node:fs";
import { createContext, runInContext } from "node:vm";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import variant from "@jitl/quickjs-ng-wasmfile-release-sync";
import { beforeAll, describe, expect, it } from "vitest";
import { homePage, notFoundPage, wordsPage } from "../fixtures/pages";
import type { RenderRequest } from "../types";

// Tests the built bundle, as the host loads it: run `npm run build` first.
const bundlePath = new URL("../../dist/server.js", import.meta.url);

function readBundle(): string {
  try {
    return readFileSync(bundlePath, "utf8");
  } catch {
    throw new Error(`${bundlePath.pathname} is missing: run \`npm run build\` before \`npm test\``);
  }
}

type Render = (request: RenderRequest | { route: string; props: unknown }) => string;

/** Only the ECMAScript builtins, like the host's engine. */
function loadInBareV8(bundle: string): Render {
  const context = createContext({});
  runInContext(bundle, context);
  const render = runInContext("__lastwords.render", context) as (json: string) => string;
  return (request) => render(JSON.stringify(request));
}

/** QuickJS-ng, the host's default engine: no Intl, no console, no timers. */
async function loadInQuickJs(bundle: string): Promise<Render> {
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  const context = quickjs.newContext();
  context.unwrapResult(context.evalCode(bundle, "server.js")).dispose();
  return (request) => {
    const result = context.evalCode(`__lastwords.render(${JSON.stringify(JSON.stringify(request))})`);
    const handle = context.unwrapResult(result);
    try {
      return context.getString(handle);
    } finally {
      handle.dispose();
    }
  };
}

const words = wordsPage(12_345);
let v8: Render;
let quickjs: Render;

beforeAll(async () => {
  const bundle = readBundle();
  v8 = loadInBareV8(bundle);
  quickjs = await loadInQuickJs(bundle);
});

describe("server bundle", () => {
  it("sets only __lastwords besides the polyfills", () => {
    const context = createContext({});
    runInContext(readBundle(), context);
    const added = runInContext("Object.keys(globalThis)", context) as string[];
    expect(added.sort()).toEqual(["MessageChannel", "TextEncoder", "__lastwords", "clearTimeout", "queueMicrotask", "setTimeout"].sort());
  });

  it("renders the words page with every phrase as text", () => {
    const html = v8(words);
    expect(html).toContain("Already-minted Last Words");
    expect(html).toContain("GOOD\u00a0LUCK!");
    for (const phrase of words.props.phrases) expect(html).toContain(`>${escapeHtml(phrase.word)}<`);
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(0)&lt;/script&gt;");
    expect(html).toContain("Already taken");
    expect(html).toContain('data-island="words"');
    expect(html).toContain("(6)");
  });

  it("renders one page of the words list with the count and links to the next page", () => {
    const html = quickjs(words);
    expect(html.match(/<li><a href="\/words\/p\d+"><bdi>/g)).toHaveLength(48);
    expect(html).toContain("12,345 Last Words minted");
    expect(html).toContain('<a rel="next" href="/words?after=9953-p0047"');
    expect(html).not.toContain('rel="prev"');
    const later = quickjs(wordsPage(12_345, { after: true, query: "ra w" }));
    expect(later).toContain('<a rel="prev" href="/words?check=ra%20w&amp;before=9952-p0048"');
    expect(later).toContain('<a rel="next" href="/words?check=ra%20w&amp;after=9905-p0095"');
    expect(later).toContain("Containing “<bdi>RA W</bdi>”, newest first");
  });

  it("says which rule a phrase the host refused breaks, without JavaScript too", () => {
    const family = "👨‍👩‍👧‍👦".repeat(17);
    const check = { input: family, normalized: family, length: 17, status: "invalid" as const, taker: null, alternatives: [], lookalike: null };
    const page = wordsPage(3);
    const html = quickjs({ ...page, props: { ...page.props, check } });
    expect(html).toContain("Too long to store: at most 400 bytes");
  });

  it("renders home and not-found pages", () => {
    const home = v8(homePage);
    expect(home).toContain('id="intro"');
    expect(home).toContain('href="/words"');
    expect(home).toContain('href="#about"');
    const notFound = v8(notFoundPage);
    expect(notFound).toContain("Page not found");
    expect(notFound).toContain("Nothing lives here.");
    expect(notFound).toContain('href="/#about"');
  });

  it("renders the landing page's sections in order, linking the art files the build wrote", () => {
    const home = quickjs(homePage);
    const order = ['id="intro"', 'id="about"', 'id="why-heading"', 'id="need-you"', 'id="minted-heading"', 'id="team"', 'id="faq"', "<footer"];
    const positions = order.map((mark) => home.indexOf(mark));
    expect(positions).not.toContain(-1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const manifest = JSON.parse(readFileSync(new URL("../../dist/manifest.json", import.meta.url), "utf8")) as { art: Record<string, string> };
    const linked = [...home.matchAll(/src="\/assets\/([^"]+)"/g)].map((match) => match[1]);
    expect(linked).toContain(manifest.art["dino-1"]);
    expect(linked.every((file) => Object.values(manifest.art).includes(file ?? ""))).toBe(true);
    expect(manifest.art["dino-1"]).toMatch(/^dino-1-[0-9a-f]{10}\.svg$/);
  });

  it("renders the same HTML under QuickJS-ng as under V8", () => {
    for (const page of [homePage, words, notFoundPage]) expect(quickjs(page)).toBe(v8(page));
  });

  it("throws on an unknown route", () => {
    expect(() => v8({ route: "mint", props: {} })).toThrow(/unknown route/);
    expect(() => quickjs({ route: "mint", props: {} })).toThrow(/unknown route/);
  });
});

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
