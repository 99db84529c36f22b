/** The bone band and the stripe band that close sections. */
import { BONE, BONE_SHADE, GREEN, INK } from "../palette";
import { BONE_BAND_SIZE, STRIPE_BAND_SIZE } from "../sizes";
import { el, group, seededRandom, svgDocument, transform } from "../svg";

/** A row of bones, tilted this way and that: wide enough for any screen, cropped in the middle. */
export function boneBand(): string {
  const random = seededRandom(42);
  const bones = Array.from({ length: 16 }, (_, index) => {
    const x = 60 + index * 120 + (random() - 0.5) * 20;
    const y = 48 + (random() - 0.5) * 12;
    const rotate = (index % 2 === 0 ? -1 : 1) * (14 + random() * 14);
    return group({ transform: transform({ x, y, rotate }) }, boneShape());
  });
  return svgDocument(BONE_BAND_SIZE, ...bones);
}

function boneShape(): string {
  const parts = [
    el("rect", { x: -34, y: -7, width: 68, height: 14, rx: 4 }),
    ...[-1, 1].flatMap((side) => [-1, 1].map((end) => el("circle", { cx: side * 36, cy: end * 8, r: 10 }))),
  ];
  return (
    group({ fill: INK, stroke: INK, "stroke-width": 10 }, ...parts) +
    group({ fill: BONE }, ...parts) +
    el("path", { d: "M-26 3H22", stroke: BONE_SHADE, "stroke-width": 4, "stroke-linecap": "round" })
  );
}

/** Black diagonal lines on green, like tape around a place that is about to go. */
export function stripeBand(): string {
  return svgDocument(STRIPE_BAND_SIZE, stripes(STRIPE_BAND_SIZE.width));
}

/** The stripe band `width` long and 48 high, to place in other pictures. */
export function stripes(width: number): string {
  const lines = Array.from({ length: Math.ceil(width / 48) + 2 }, (_, index) => {
    const x = index * 48 - 48;
    return `M${x} 48L${x + 24} 0H${x + 48}L${x + 24} 48Z`;
  });
  return group(
    {},
    el("rect", { width, height: 48, fill: GREEN }),
    el("path", { d: lines.join(""), fill: INK }),
    el("path", { d: `M0 2H${width}M0 46H${width}`, stroke: INK, "stroke-width": 4 }),
  );
}
