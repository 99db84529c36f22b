/**
 * The four dinosaur bodies, drawn facing right on a 200 × 200 grid with the
 * ground at y = 188. Each body lists its shapes by layer and the anchor points
 * eyes and accessories attach to, so any face or prop fits any body.
 */
import { el, type Point } from "./svg";

export type BodyShape = "rex" | "bronto" | "stego" | "tricera";

export interface HeadAnchor extends Point {
  /** How wide the top of the head is where a hat sits. */
  width: number;
}

export interface EyeAnchor extends Point {
  radius: number;
}

export interface Anchors {
  /** The middle of the top of the head. */
  head: HeadAnchor;
  eye: EyeAnchor;
  /** Where a collar, scarf or bow tie goes. */
  neck: Point;
  /** The front hand (or front foot for dinosaurs without arms). */
  hand: Point;
  /** Under the jaw, where a beard hangs. */
  chin: Point;
  /** The corner of the mouth, where a megaphone goes. */
  mouth: Point;
}

export interface Body {
  /** Far legs and arms, drawn first in a darker skin. */
  far: readonly string[];
  /** Plates, frills: behind the body, in the pattern colour. */
  crest: readonly string[];
  /** The silhouette in the skin colour, outlined as one shape. */
  silhouette: readonly string[];
  /** The front arm, drawn again over anything the dinosaur holds. */
  arm: readonly string[];
  belly: string;
  spots: readonly Circle[];
  stripes: readonly Segment[];
  /** Horns and spikes, in bone. */
  horns: readonly string[];
  mouth: string;
  nostril: Point;
  cheek: Point;
  anchors: Anchors;
}

export interface Circle extends Point {
  r: number;
}

export type Segment = readonly [number, number, number, number];

export function ellipse(cx: number, cy: number, rx: number, ry: number): string {
  return el("ellipse", { cx, cy, rx, ry });
}

export function circle(cx: number, cy: number, r: number): string {
  return el("circle", { cx, cy, r });
}

export function path(d: string): string {
  return el("path", { d });
}

function rect(x: number, y: number, width: number, height: number, rx: number): string {
  return el("rect", { x, y, width, height, rx });
}

/** A foot with toes to the right: a leg `width` wide standing on the ground. */
function leg(x: number, top: number, width: number): string {
  const height = 188 - top;
  return path(`M${x} ${top}h${width}v${height - 12}h6q7 0 7 7v5h-${width + 13}z`);
}

/** Kite-shaped plates standing on the upper edge of an ellipse. */
function plates(cx: number, cy: number, rx: number, ry: number, angles: readonly number[], size: number): string[] {
  return angles.map((degrees, index) => {
    const angle = (degrees * Math.PI) / 180;
    const baseX = cx + rx * Math.cos(angle);
    const baseY = cy - ry * Math.sin(angle);
    const normal = Math.atan2(-Math.sin(angle) * rx, Math.cos(angle) * ry);
    const length = size * (index % 2 === 0 ? 1 : 0.82);
    const tip = { x: baseX + Math.cos(normal) * length, y: baseY + Math.sin(normal) * length };
    const side = { x: -Math.sin(normal) * length * 0.42, y: Math.cos(normal) * length * 0.42 };
    const mid = { x: baseX + Math.cos(normal) * length * 0.45, y: baseY + Math.sin(normal) * length * 0.45 };
    const inset = { x: -Math.cos(normal) * 6, y: -Math.sin(normal) * 6 };
    return path(
      `M${f(baseX + side.x * 0.5 + inset.x)} ${f(baseY + side.y * 0.5 + inset.y)}` +
        `L${f(mid.x + side.x)} ${f(mid.y + side.y)}L${f(tip.x)} ${f(tip.y)}` +
        `L${f(mid.x - side.x)} ${f(mid.y - side.y)}L${f(baseX - side.x * 0.5 + inset.x)} ${f(baseY - side.y * 0.5 + inset.y)}Z`,
    );
  });
}

/** A frill: an ellipse with a scalloped rim. */
function frill(cx: number, cy: number, rx: number, ry: number): string[] {
  const bumps = [150, 125, 100, 75, 50, 25].map((degrees) => {
    const angle = (degrees * Math.PI) / 180;
    return circle(f(cx + rx * Math.cos(angle)), f(cy - ry * Math.sin(angle)), 9);
  });
  return [ellipse(cx, cy, rx, ry), ...bumps];
}

function f(value: number): number {
  return Math.round(value * 10) / 10;
}

const REX_ARM = path("M126 124q18-6 26 4q4 6-2 9l-6-3l-1 6q-5 3-8-2q-9-3-9-14z");

export const BODIES: Readonly<Record<BodyShape, Body>> = {
  rex: {
    far: [leg(106, 150, 26)],
    crest: [],
    silhouette: [
      path("M72 116C44 122 22 144 6 176C36 168 62 162 86 152Z"),
      ellipse(92, 132, 44, 46),
      path("M90 80L134 88L138 122L84 118Z"),
      path("M78 64C78 37 99 20 128 20C159 20 183 35 185 62C187 83 177 99 158 101L116 103C93 103 78 90 78 64Z"),
      leg(64, 152, 30),
      REX_ARM,
    ],
    arm: [REX_ARM],
    belly: ellipse(108, 140, 23, 32),
    spots: [
      { x: 58, y: 122, r: 7 },
      { x: 70, y: 102, r: 5.5 },
      { x: 50, y: 144, r: 5 },
      { x: 100, y: 34, r: 5.5 },
      { x: 116, y: 28, r: 4 },
      { x: 90, y: 50, r: 4 },
    ],
    stripes: [
      [52, 112, 64, 124],
      [62, 96, 74, 110],
      [40, 136, 54, 144],
      [96, 28, 104, 42],
      [112, 24, 118, 36],
    ],
    horns: [],
    mouth: "M124 84Q150 96 177 80",
    nostril: { x: 177, y: 44 },
    cheek: { x: 152, y: 72 },
    anchors: {
      head: { x: 130, y: 21, width: 88 },
      eye: { x: 138, y: 50, radius: 12 },
      neck: { x: 114, y: 106 },
      hand: { x: 148, y: 132 },
      chin: { x: 150, y: 101 },
      mouth: { x: 176, y: 80 },
    },
  },
  bronto: {
    far: [rect(82, 138, 22, 50, 9), rect(130, 134, 20, 54, 9)],
    crest: [],
    silhouette: [
      path("M44 122C26 124 12 116 2 102C8 132 28 150 62 148Z"),
      ellipse(88, 130, 52, 34),
      path("M110 114C128 94 132 70 136 48L166 54C162 82 154 114 134 142Z"),
      ellipse(154, 44, 28, 21),
      ellipse(172, 52, 16, 14),
      rect(60, 138, 24, 50, 9),
      rect(112, 138, 24, 50, 9),
    ],
    arm: [],
    belly: ellipse(92, 148, 34, 12),
    spots: [
      { x: 60, y: 116, r: 7 },
      { x: 84, y: 106, r: 8 },
      { x: 110, y: 114, r: 6 },
      { x: 72, y: 134, r: 5 },
      { x: 142, y: 78, r: 5 },
      { x: 146, y: 32, r: 4 },
    ],
    stripes: [
      [56, 104, 62, 122],
      [76, 98, 80, 116],
      [98, 98, 100, 116],
      [138, 64, 150, 66],
      [134, 84, 146, 88],
    ],
    horns: [],
    mouth: "M160 60Q174 66 186 56",
    nostril: { x: 184, y: 46 },
    cheek: { x: 170, y: 56 },
    anchors: {
      head: { x: 152, y: 24, width: 54 },
      eye: { x: 158, y: 38, radius: 9 },
      neck: { x: 142, y: 86 },
      hand: { x: 124, y: 170 },
      chin: { x: 172, y: 64 },
      mouth: { x: 186, y: 56 },
    },
  },
  stego: {
    far: [rect(80, 140, 22, 48, 9), rect(128, 138, 20, 50, 9)],
    crest: plates(90, 126, 54, 36, [168, 146, 124, 102, 80, 58, 36], 30),
    silhouette: [
      path("M44 126C28 122 14 110 4 94C8 126 24 146 54 150Z"),
      ellipse(90, 128, 54, 36),
      path("M128 110C146 104 162 106 174 116C188 128 186 144 170 148C154 152 138 148 126 142Z"),
      rect(58, 140, 24, 48, 9),
      rect(110, 140, 24, 48, 9),
    ],
    arm: [],
    belly: ellipse(94, 150, 34, 11),
    spots: [
      { x: 68, y: 116, r: 6 },
      { x: 94, y: 108, r: 7 },
      { x: 118, y: 118, r: 5 },
      { x: 58, y: 136, r: 4 },
    ],
    stripes: [
      [62, 106, 66, 124],
      [84, 100, 86, 120],
      [106, 100, 106, 120],
      [126, 108, 124, 126],
    ],
    horns: [
      path("M14 105L5 89L22 99Z"),
      path("M26 117L20 100L34 110Z"),
    ],
    mouth: "M156 140Q170 146 182 138",
    nostril: { x: 180, y: 124 },
    cheek: { x: 166, y: 136 },
    anchors: {
      head: { x: 158, y: 108, width: 40 },
      eye: { x: 160, y: 124, radius: 8 },
      neck: { x: 124, y: 142 },
      hand: { x: 124, y: 172 },
      chin: { x: 170, y: 150 },
      mouth: { x: 182, y: 138 },
    },
  },
  tricera: {
    far: [rect(76, 140, 22, 48, 9), rect(124, 138, 20, 50, 9)],
    crest: frill(124, 106, 34, 38),
    silhouette: [
      path("M40 128C24 126 12 118 4 106C8 132 24 146 52 150Z"),
      ellipse(84, 132, 50, 34),
      path("M118 104C138 90 168 94 180 110C190 124 186 142 170 148L136 150C116 148 108 120 118 104Z"),
      path("M176 118L196 132L178 148Z"),
      rect(56, 140, 24, 48, 9),
      rect(106, 140, 24, 48, 9),
    ],
    arm: [],
    belly: ellipse(86, 152, 32, 11),
    spots: [
      { x: 60, y: 120, r: 6 },
      { x: 84, y: 110, r: 7 },
      { x: 104, y: 120, r: 5 },
      { x: 56, y: 140, r: 4 },
    ],
    stripes: [
      [58, 108, 62, 126],
      [80, 100, 82, 120],
      [102, 104, 100, 122],
    ],
    horns: [
      path("M136 106L166 70L152 106Z"),
      path("M152 106L186 78L168 110Z"),
      path("M178 116L190 100L188 122Z"),
    ],
    mouth: "M158 140Q170 146 180 140",
    nostril: { x: 186, y: 126 },
    cheek: { x: 162, y: 132 },
    anchors: {
      head: { x: 124, y: 64, width: 50 },
      eye: { x: 150, y: 120, radius: 8 },
      neck: { x: 116, y: 142 },
      hand: { x: 118, y: 172 },
      chin: { x: 170, y: 150 },
      mouth: { x: 182, y: 140 },
    },
  },
};
