/**
 * A blocky 5 × 7 capital alphabet drawn as one path, so lettering in images
 * needs no font: the Open Graph image is rasterised where no fonts may exist.
 */
import { el, num } from "./svg";

const GLYPH_WIDTH = 5;
const GLYPH_HEIGHT = 7;

/** Each glyph is seven rows of five columns; `#` is ink. */
const GLYPHS: Readonly<Record<string, readonly string[]>> = {
  A: [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
  B: ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
  C: [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
  D: ["####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."],
  E: ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
  F: ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
  G: [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"],
  H: ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
  I: ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"],
  J: ["..###", "...#.", "...#.", "...#.", "#..#.", "#..#.", ".##.."],
  K: ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
  L: ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
  M: ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
  N: ["#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"],
  O: [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
  P: ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
  Q: [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"],
  R: ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
  S: [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
  T: ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
  U: ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
  V: ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
  W: ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."],
  X: ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
  Y: ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
  Z: ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"],
  "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
  "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
  "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
  "#": [".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#."],
  "!": ["..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."],
  "*": [".....", "..#..", "#.#.#", ".###.", "#.#.#", "..#..", "....."],
  ".": [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."],
  "-": [".....", ".....", ".....", "#####", ".....", ".....", "....."],
  " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
};

export interface Lettering {
  /** Path data of the text at pixel size 1, top left at 0,0. */
  d: string;
  /** In pixels, the gap of one pixel between letters included. */
  width: number;
  height: number;
}

/** Lays out `text` (capitals, digits 0–2, `# ! * . -` and spaces) in the pixel font. */
export function letter(text: string): Lettering {
  let d = "";
  [...text.toUpperCase()].forEach((char, index) => {
    const rows = GLYPHS[char];
    if (!rows) throw new Error(`the pixel font has no glyph for ${JSON.stringify(char)}`);
    const left = index * (GLYPH_WIDTH + 1);
    rows.forEach((row, y) => {
      for (const run of row.matchAll(/#+/g)) {
        d += `M${left + run.index} ${y}h${run[0].length}v1h-${run[0].length}z`;
      }
    });
  });
  const count = [...text].length;
  return { d, width: count > 0 ? count * (GLYPH_WIDTH + 1) - 1 : 0, height: GLYPH_HEIGHT };
}

/** Text as a filled path, `pixel` units per font pixel, its top left at `x`,`y`. */
export function pixelText(text: string, x: number, y: number, pixel: number, fill: string): string {
  const { d } = letter(text);
  return el("path", { d, fill, transform: `translate(${num(x)} ${num(y)}) scale(${num(pixel)})` });
}

/** Whether the pixel font can draw `char`. */
export function hasGlyph(char: string): boolean {
  return Object.hasOwn(GLYPHS, char.toUpperCase());
}
