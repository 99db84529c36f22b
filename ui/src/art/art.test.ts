import { describe, expect, it } from "vitest";
import { MINTED_DINOS } from "../data/dinos";
import { TEAM } from "../data/team";
import { ART_NAMES, artSize, dinoArt, teamArt } from "./catalog";
import { letter } from "./pixelFont";
import { CARD_SOURCES, RASTER_SOURCES, renderArt, renderCatalog } from "./render";
import { OG_SIZE } from "./sizes";

describe("the ten minted Dinos", () => {
  it("are numbered 1 to 10", () => {
    expect(MINTED_DINOS.map((dino) => dino.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("differ from each other in their data, their pictures and their descriptions", () => {
    const distinct = (values: string[]) => new Set(values).size;
    expect(distinct(MINTED_DINOS.map((dino) => JSON.stringify(dino.spec)))).toBe(10);
    expect(distinct(MINTED_DINOS.map((dino) => renderArt(dinoArt(dino.number))))).toBe(10);
    expect(distinct(MINTED_DINOS.map((dino) => dino.description))).toBe(10);
  });

  it("use every body and every kind of eye", () => {
    expect(new Set(MINTED_DINOS.map((dino) => dino.spec.body))).toEqual(new Set(["rex", "bronto", "stego", "tricera"]));
    expect(new Set(MINTED_DINOS.map((dino) => dino.spec.eyes)).size).toBe(6);
  });
});

describe("the team", () => {
  it("is the four characters, each with their props", () => {
    expect(TEAM.map((member) => [member.role, member.spec.accessories])).toEqual([
      ["The Creator", ["beret", "brush"]],
      ["The Wise", ["beard", "glasses"]],
      ["The Tech Guy", ["laptop"]],
      ["The Guitar Boy", ["guitar"]],
    ]);
  });
});

describe("every picture in the catalogue", () => {
  const catalog = renderCatalog();

  it("has a unique name, Dinos and team included", () => {
    expect(new Set(ART_NAMES).size).toBe(ART_NAMES.length);
    for (const dino of MINTED_DINOS) expect(ART_NAMES).toContain(dinoArt(dino.number));
    for (const member of TEAM) expect(ART_NAMES).toContain(teamArt(member.slug));
  });

  it.each(catalog)("%s is a well-formed SVG of its declared, fixed size", (name, svg) => {
    const { width, height } = artSize(name);
    expect(svg.startsWith(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`)).toBe(true);
    expectWellFormed(svg);
  });

  it("draws the same bytes on every build, so file hashes only change with the art", () => {
    expect(renderCatalog()).toEqual(catalog);
  });

  // A nested <svg> clips to its box unless told not to: the megaphone of "need-you" was
  // cut flat at the Dino's 200 units, its sound lines gone.
  it.each(catalog)("%s draws what a placed Dino holds past its box", (_name, svg) => {
    const nested = svg.match(/<svg [^>]*>/g)?.slice(1) ?? [];
    for (const tag of nested) expect(tag).toContain('overflow="visible"');
  });
});

describe("the pictures the host rasterises", () => {
  it("are an Open Graph card of 1200 × 630 and a square icon, with no lettering left to fonts", () => {
    const og = RASTER_SOURCES.og();
    const icon = RASTER_SOURCES.icon();
    expect(og).toContain(`width="${OG_SIZE.width}" height="${OG_SIZE.height}"`);
    expect(icon).toMatch(/^<svg [^>]*width="(\d+)" height="\1"/);
    for (const svg of [og, icon]) {
      expectWellFormed(svg);
      expect(svg).not.toMatch(/<(text|style|foreignObject|filter|image)\b/);
    }
  });
});

describe("the backdrop of a phrase's card", () => {
  it("is 1200 × 630 with no lettering: the host sets the phrase and names on it", () => {
    const backdrop = CARD_SOURCES.backdrop();
    expect(backdrop).toContain(`width="${OG_SIZE.width}" height="${OG_SIZE.height}"`);
    expectWellFormed(backdrop);
    expect(backdrop).not.toMatch(/<(text|style|foreignObject|filter|image)\b/);
    expect(CARD_SOURCES.backdrop()).toBe(backdrop);
  });
});

describe("the pixel font", () => {
  it("lays glyphs five pixels wide with a one-pixel gap", () => {
    expect(letter("LAST").width).toBe(4 * 6 - 1);
    expect(letter("I").d).toBe("M0 0h5v1h-5zM2 1h1v1h-1zM2 2h1v1h-1zM2 3h1v1h-1zM2 4h1v1h-1zM2 5h1v1h-1zM0 6h5v1h-5z");
  });

  it("refuses a character it cannot draw", () => {
    expect(() => letter("€")).toThrow(/no glyph/);
  });
});

/**
 * What a browser, resvg and an `<img>` all need: balanced tags, quoted
 * attributes, no script or stylesheet, and no number that failed to compute.
 */
function expectWellFormed(svg: string): void {
  expect(svg).not.toMatch(/NaN|undefined|Infinity|<script|<style|style=/);
  const stack: string[] = [];
  for (const [, closing, tag, attrs, selfClosing] of svg.matchAll(/<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>/g)) {
    if (!tag) throw new Error("unreachable: the pattern always captures a tag");
    expect(attrs ?? "").toMatch(/^(\s+[a-z][a-z0-9:-]*="[^"<>]*")*\s*$/i);
    if (closing) expect(stack.pop()).toBe(tag);
    else if (!selfClosing) stack.push(tag);
  }
  expect(stack).toEqual([]);
  expect(svg.replace(/<[^>]*>/g, "").trim()).toBe("");
}
