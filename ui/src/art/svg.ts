/**
 * The few helpers every drawing shares: SVG elements as strings, so the art
 * renders anywhere (the build, tests, the server engine) without a DOM.
 */

export type AttrValue = string | number | false | undefined;
export type Attrs = Readonly<Record<string, AttrValue>>;

/** One element; attributes that are `false` or `undefined` are left out. */
export function el(tag: string, attrs: Attrs = {}, ...children: readonly string[]): string {
  const written = Object.entries(attrs)
    .filter((entry): entry is [string, string | number] => entry[1] !== false && entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${typeof value === "number" ? num(value) : escapeXml(value)}"`)
    .join("");
  const body = children.join("");
  return body ? `<${tag}${written}>${body}</${tag}>` : `<${tag}${written}/>`;
}

export function group(attrs: Attrs, ...children: readonly string[]): string {
  return el("g", attrs, ...children);
}

/** A standalone SVG file of a fixed size. */
export function svgDocument(size: Size, ...children: readonly string[]): string {
  return el(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      width: size.width,
      height: size.height,
      viewBox: `0 0 ${num(size.width)} ${num(size.height)}`,
    },
    ...children,
  );
}

/**
 * A drawing placed inside another one: `viewBox` content scaled into a box. Not clipped
 * to the box, as a nested `<svg>` is by default: what a Dino holds out in front of it
 * (a megaphone's bell and its sound) reaches past its own 200 units.
 */
export function nested(box: Box, viewBox: Size, ...children: readonly string[]): string {
  return el(
    "svg",
    {
      x: box.x,
      y: box.y,
      width: box.width,
      height: box.height,
      viewBox: `0 0 ${num(viewBox.width)} ${num(viewBox.height)}`,
      overflow: "visible",
    },
    ...children,
  );
}

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface Box extends Point, Size {}

/** Short, stable numbers: two decimals at most, no trailing zeros. */
export function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** `translate(x y) rotate(deg) scale(s)`, each part only when it does something. */
export function transform({ x = 0, y = 0, rotate = 0, scale = 1 }: Partial<Point> & { rotate?: number; scale?: number }): string | undefined {
  const parts = [
    x !== 0 || y !== 0 ? `translate(${num(x)} ${num(y)})` : "",
    rotate !== 0 ? `rotate(${num(rotate)})` : "",
    scale !== 1 ? `scale(${num(scale)})` : "",
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/**
 * A small deterministic generator (mulberry32), so scattered stars and bones
 * land in the same places on every build and the file hashes stay put.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
