/**
 * Props a dinosaur can wear or hold, each drawn around the anchor of the body
 * it goes on, so one crown fits a T-rex and a triceratops alike.
 */
import type { Anchors } from "./bodies";
import { BONE, FIRE, FIRE_HOT, GREEN, INK, WHITE, shade } from "./palette";
import { el, group, transform } from "./svg";

export type Accessory =
  | "crown"
  | "party-hat"
  | "cap"
  | "beret"
  | "halo"
  | "flower"
  | "headphones"
  | "sunglasses"
  | "glasses"
  | "beard"
  | "bow-tie"
  | "scarf"
  | "bandana"
  | "brush"
  | "laptop"
  | "guitar"
  | "megaphone";

/** Where a prop sits: on the head and face, or held in front of the body. */
export type AccessoryLayer = "held" | "worn";

interface AccessoryArt {
  layer: AccessoryLayer;
  draw(anchors: Anchors): string;
}

const LINE = { stroke: INK, "stroke-width": 4, "stroke-linejoin": "round", "stroke-linecap": "round" } as const;
const GOLD = "#facc15";
const RED = "#ef4444";

export const ACCESSORIES: Readonly<Record<Accessory, AccessoryArt>> = {
  crown: {
    layer: "worn",
    draw: ({ head }) =>
      group(
        { transform: transform({ x: head.x - 4, y: head.y + 5, rotate: -10, scale: head.width / 90 }) },
        el("path", { d: "M-22 0V-22L-11-9L0-28L11-9L22-22V0Z", fill: GOLD, ...LINE }),
        el("circle", { cx: 0, cy: -8, r: 3.5, fill: RED }),
        el("circle", { cx: -13, cy: -5, r: 2.5, fill: "#38bdf8" }),
        el("circle", { cx: 13, cy: -5, r: 2.5, fill: "#38bdf8" }),
      ),
  },
  "party-hat": {
    layer: "worn",
    draw: ({ head }) =>
      group(
        { transform: transform({ x: head.x - 6, y: head.y + 4, rotate: -14, scale: head.width / 90 }) },
        el("path", { d: "M-16 0L0-44L16 0Z", fill: "#a855f7", ...LINE }),
        el("path", { d: "M-10-16L6-12M-6-30L4-28", stroke: GOLD, "stroke-width": 5, "stroke-linecap": "round" }),
        el("circle", { cx: 0, cy: -46, r: 6, fill: GOLD, ...LINE }),
      ),
  },
  cap: {
    layer: "worn",
    draw: ({ head }) =>
      group(
        { transform: transform({ x: head.x, y: head.y + 7, rotate: -4, scale: head.width / 90 }) },
        el("path", { d: "M-30 0C-30-22-14-30 2-30C20-30 32-20 32 0Z", fill: RED, ...LINE }),
        el("path", { d: "M20 -2H56Q60 4 52 6H18Z", fill: shade(RED, -0.25), ...LINE }),
        el("circle", { cx: 0, cy: -30, r: 4, fill: WHITE, ...LINE }),
      ),
  },
  beret: {
    layer: "worn",
    draw: ({ head }) =>
      group(
        { transform: transform({ x: head.x - 10, y: head.y + 6, rotate: -12, scale: head.width / 90 }) },
        el("path", { d: "M-36-2C-38-18-14-26 6-24C28-22 42-14 38-2C30 6-28 6-36-2Z", fill: "#e11d48", ...LINE }),
        el("path", { d: "M2-25L3-30", ...LINE }),
      ),
  },
  halo: {
    layer: "worn",
    draw: ({ head }) =>
      el("ellipse", {
        cx: head.x,
        cy: head.y - 14,
        rx: head.width * 0.32,
        ry: 7,
        fill: "none",
        stroke: GOLD,
        "stroke-width": 6,
      }),
  },
  flower: {
    layer: "worn",
    draw: ({ head }) =>
      group(
        { transform: transform({ x: head.x - head.width * 0.28, y: head.y + 2, scale: head.width / 90 }) },
        ...[0, 72, 144, 216, 288].map((degrees) =>
          el("ellipse", { cx: 0, cy: -10, rx: 7, ry: 10, fill: "#f9a8d4", ...LINE, transform: `rotate(${degrees})` }),
        ),
        el("circle", { cx: 0, cy: 0, r: 6, fill: GOLD, ...LINE }),
      ),
  },
  headphones: {
    layer: "worn",
    draw: ({ head, eye }) => {
      const left = head.x - head.width * 0.36;
      const right = head.x + head.width * 0.3;
      const cupY = eye.y + eye.radius * 1.2;
      return group(
        {},
        el("path", {
          d: `M${left} ${cupY}C${left - 4} ${head.y - 20} ${right + 4} ${head.y - 20} ${right} ${cupY - 10}`,
          fill: "none",
          stroke: INK,
          "stroke-width": 9,
          "stroke-linecap": "round",
        }),
        el("path", {
          d: `M${left} ${cupY}C${left - 4} ${head.y - 20} ${right + 4} ${head.y - 20} ${right} ${cupY - 10}`,
          fill: "none",
          stroke: "#f97316",
          "stroke-width": 4,
          "stroke-linecap": "round",
        }),
        el("rect", { x: left - 9, y: cupY - 12, width: 18, height: 24, rx: 7, fill: "#f97316", ...LINE }),
      );
    },
  },
  sunglasses: {
    layer: "worn",
    draw: ({ eye }) =>
      group(
        {},
        el("path", { d: `M${eye.x - eye.radius * 3} ${eye.y - 3}L${eye.x} ${eye.y - 4}`, ...LINE }),
        el("rect", {
          x: eye.x - eye.radius * 1.4,
          y: eye.y - eye.radius * 1.05,
          width: eye.radius * 2.9,
          height: eye.radius * 1.9,
          rx: eye.radius * 0.7,
          fill: "#111827",
          ...LINE,
        }),
        el("path", {
          d: `M${eye.x - eye.radius * 0.6} ${eye.y - eye.radius * 0.3}l${eye.radius * 0.6} -${eye.radius * 0.4}`,
          stroke: WHITE,
          "stroke-width": 3,
          "stroke-linecap": "round",
        }),
      ),
  },
  glasses: {
    layer: "worn",
    draw: ({ eye }) =>
      group(
        {},
        el("path", { d: `M${eye.x - eye.radius * 3} ${eye.y - 2}L${eye.x - eye.radius * 1.5} ${eye.y - 1}`, ...LINE }),
        el("circle", {
          cx: eye.x + 1,
          cy: eye.y,
          r: eye.radius * 1.5,
          fill: WHITE,
          "fill-opacity": 0.2,
          stroke: INK,
          "stroke-width": 4,
        }),
      ),
  },
  beard: {
    layer: "worn",
    draw: ({ chin }) =>
      el("path", {
        d:
          `M${chin.x - 28} ${chin.y - 6}` +
          `q-6 16 6 26q0 12 14 14q6 10 16 2q12 4 14-10q12-8 4-26q-10 6-26 4q-18-2-28-10z`,
        fill: "#e5e7eb",
        ...LINE,
      }),
  },
  "bow-tie": {
    layer: "worn",
    draw: ({ neck }) =>
      group(
        { transform: transform({ x: neck.x, y: neck.y, rotate: -14 }) },
        el("path", { d: "M0 0L-16-10V10ZM0 0L16-10V10Z", fill: RED, ...LINE }),
        el("circle", { cx: 0, cy: 0, r: 5, fill: shade(RED, -0.2), ...LINE }),
      ),
  },
  scarf: {
    layer: "worn",
    draw: ({ neck }) =>
      group(
        { transform: transform({ x: neck.x, y: neck.y, rotate: -16 }) },
        el("path", { d: "M-26-8Q0 4 26-10L28 2Q0 16-28 4Z", fill: "#38bdf8", ...LINE }),
        el("path", { d: "M-12 4L-20 32L-8 32L0 8Z", fill: "#38bdf8", ...LINE }),
        el("path", { d: "M-10-2V8M4-4V8M16-6V4M-17 20H-7", stroke: WHITE, "stroke-width": 3 }),
      ),
  },
  bandana: {
    layer: "worn",
    draw: ({ neck }) =>
      group(
        { transform: transform({ x: neck.x, y: neck.y, rotate: -18 }) },
        el("path", { d: "M-24-8Q0 2 24-8L4 22Z", fill: "#f97316", ...LINE }),
        el("circle", { cx: -6, cy: 0, r: 2, fill: WHITE }),
        el("circle", { cx: 8, cy: 2, r: 2, fill: WHITE }),
        el("circle", { cx: 2, cy: 10, r: 2, fill: WHITE }),
      ),
  },
  brush: {
    layer: "held",
    draw: ({ hand }) =>
      group(
        { transform: transform({ x: hand.x, y: hand.y, rotate: -40 }) },
        el("rect", { x: -6, y: -4, width: 50, height: 8, rx: 4, fill: "#b45309", ...LINE }),
        el("rect", { x: 42, y: -6, width: 10, height: 12, fill: "#d1d5db", ...LINE }),
        el("path", { d: "M52-6Q68-6 72 0Q68 6 52 6Z", fill: GREEN, ...LINE }),
      ),
  },
  laptop: {
    layer: "held",
    draw: ({ hand }) =>
      group(
        { transform: transform({ x: hand.x - 22, y: hand.y + 14 }) },
        el("rect", { x: -24, y: -42, width: 50, height: 36, rx: 4, fill: "#374151", ...LINE }),
        el("rect", { x: -18, y: -36, width: 38, height: 24, rx: 2, fill: "#052e16" }),
        el("path", { d: "M-13-30h14M-13-24h22M-9-18h12", stroke: GREEN, "stroke-width": 3, "stroke-linecap": "round" }),
        el("path", { d: "M-30 0L-24-6H26L32 0Z", fill: "#9ca3af", ...LINE }),
      ),
  },
  guitar: {
    layer: "held",
    draw: ({ hand }) =>
      group(
        { transform: transform({ x: hand.x - 44, y: hand.y + 18, rotate: -38 }) },
        el("rect", { x: 14, y: -5, width: 72, height: 10, rx: 2, fill: "#92400e", ...LINE }),
        el("path", { d: "M84-8H100L102 8H84Z", fill: INK }),
        el("path", {
          d: "M-30 0C-30-22-12-24-2-16C4-22 20-20 20 0C20 20 4 22-2 16C-12 24-30 22-30 0Z",
          fill: FIRE,
          ...LINE,
        }),
        el("circle", { cx: 2, cy: 0, r: 7, fill: INK }),
        el("rect", { x: -22, y: -7, width: 6, height: 14, rx: 2, fill: "#92400e" }),
        el("path", { d: "M-18-3H96M-18 2H96", stroke: FIRE_HOT, "stroke-width": 1.2 }),
      ),
  },
  megaphone: {
    layer: "held",
    draw: ({ mouth }) =>
      group(
        { transform: transform({ x: mouth.x - 6, y: mouth.y, rotate: -16, scale: 1.3 }) },
        el("path", { d: "M0-6L30-20V20L0 6Z", fill: FIRE, ...LINE }),
        el("rect", { x: -8, y: -7, width: 10, height: 14, rx: 3, fill: BONE, ...LINE }),
        el("path", { d: "M38-14l10-8M40 0h12M38 14l10 8", ...LINE, stroke: FIRE_HOT }),
      ),
  },
};
