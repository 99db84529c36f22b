/**
 * The dinosaur character system: a body, colours, eyes, a pattern and props,
 * as data, drawn into SVG. Every Dino on the site comes from here.
 */
import { ACCESSORIES, type Accessory } from "./accessories";
import { BODIES, circle, type Body, type EyeAnchor, type Segment } from "./bodies";
import { BLUSH, INK, WHITE, shade } from "./palette";
import { DINO_SIZE } from "./sizes";
import { el, group, svgDocument } from "./svg";

export type { Accessory } from "./accessories";
export type { BodyShape } from "./bodies";

export type EyeStyle = "round" | "big" | "sleepy" | "happy" | "angry" | "dot";

export type Pattern = "spots" | "stripes" | "plain";

export interface DinoColors {
  skin: string;
  belly: string;
  /** Spots, stripes, plates and frills. */
  pattern: string;
}

export interface DinoSpec {
  body: keyof typeof BODIES;
  colors: DinoColors;
  eyes: EyeStyle;
  pattern: Pattern;
  accessories: readonly Accessory[];
}

const OUTLINE = 7;

/** A Dino's drawing on the 200 × 200 grid, with no background: ready to place in a scene. */
export function drawDino(spec: DinoSpec): string {
  const body = BODIES[spec.body];
  const { skin, belly, pattern } = spec.colors;
  const held = spec.accessories.filter((name) => ACCESSORIES[name].layer === "held");
  const worn = spec.accessories.filter((name) => ACCESSORIES[name].layer === "worn");
  return [
    el("ellipse", { cx: 98, cy: 190, rx: 70, ry: 6, fill: INK, "fill-opacity": 0.35 }),
    outlined(body.far, shade(skin, -0.28)),
    outlined(body.crest, pattern),
    outlined(body.silhouette, skin),
    group({ fill: belly }, body.belly),
    drawPattern(body, spec.pattern, pattern),
    outlined(body.horns, "#f4ecd6", 4),
    drawFace(body, spec),
    ...held.map((name) => ACCESSORIES[name].draw(body.anchors)),
    held.length > 0 ? outlined(body.arm, skin, 5) : "",
    ...worn.map((name) => ACCESSORIES[name].draw(body.anchors)),
  ].join("");
}

/** A Dino as a portrait on a coloured square, the way a collectible is shown. */
export function dinoPortrait(spec: DinoSpec, background: string): string {
  return svgDocument(
    DINO_SIZE,
    el("rect", { width: 200, height: 200, fill: background }),
    el("path", { d: "M0 172Q100 160 200 172V200H0Z", fill: shade(background, -0.18) }),
    group({ transform: "translate(8 4) scale(0.92)" }, drawDino(spec)),
  );
}

/**
 * Shapes drawn twice, a thick dark stroke under a flat fill, so overlapping
 * parts share one outline the way a cartoon is inked.
 */
function outlined(shapes: readonly string[], fill: string, width = OUTLINE): string {
  if (shapes.length === 0) return "";
  return (
    group({ fill: INK, stroke: INK, "stroke-width": width * 2, "stroke-linejoin": "round" }, ...shapes) +
    group({ fill }, ...shapes)
  );
}

function drawPattern(body: Body, pattern: Pattern, color: string): string {
  switch (pattern) {
    case "spots":
      return group({ fill: color }, ...body.spots.map((spot) => circle(spot.x, spot.y, spot.r)));
    case "stripes":
      return group(
        { stroke: color, "stroke-width": 6, "stroke-linecap": "round" },
        ...body.stripes.map((segment: Segment) => el("path", { d: `M${segment[0]} ${segment[1]}L${segment[2]} ${segment[3]}` })),
      );
    case "plain":
      return "";
  }
}

function drawFace(body: Body, spec: DinoSpec): string {
  const { nostril, cheek } = body;
  return [
    el("ellipse", { cx: cheek.x, cy: cheek.y, rx: 7, ry: 4.5, fill: BLUSH, "fill-opacity": 0.55 }),
    el("path", { d: body.mouth, fill: "none", stroke: INK, "stroke-width": 4, "stroke-linecap": "round" }),
    el("ellipse", { cx: nostril.x, cy: nostril.y, rx: 2, ry: 2.8, fill: INK, transform: `rotate(-20 ${nostril.x} ${nostril.y})` }),
    drawEye(body.anchors.eye, spec.eyes, spec.colors.skin),
  ].join("");
}

function drawEye({ x, y, radius: r }: EyeAnchor, style: EyeStyle, skin: string): string {
  const white = (scale: number) => el("circle", { cx: x, cy: y, r: r * scale, fill: WHITE, stroke: INK, "stroke-width": 3.5 });
  const pupil = (scale: number, dx = r * 0.25, dy = 0) => el("circle", { cx: x + dx, cy: y + dy, r: r * scale, fill: INK });
  const shine = (dx: number, dy: number, scale: number) => el("circle", { cx: x + dx, cy: y + dy, r: r * scale, fill: WHITE });
  switch (style) {
    case "round":
      return white(1) + pupil(0.52) + shine(r * 0.45, -r * 0.3, 0.18);
    case "big":
      return white(1.18) + pupil(0.78, r * 0.2) + shine(r * 0.5, -r * 0.35, 0.26) + shine(-r * 0.1, r * 0.35, 0.12);
    case "sleepy":
      return (
        white(1) +
        pupil(0.48, r * 0.25, r * 0.3) +
        el("path", {
          d: `M${x - r - 2} ${y}A${r + 2} ${r + 2} 0 0 1 ${x + r + 2} ${y}Z`,
          fill: skin,
          stroke: INK,
          "stroke-width": 3.5,
          "stroke-linejoin": "round",
        })
      );
    case "happy":
      return el("path", {
        d: `M${x - r * 0.9} ${y + r * 0.25}Q${x} ${y - r * 1.1} ${x + r * 0.9} ${y + r * 0.25}`,
        fill: "none",
        stroke: INK,
        "stroke-width": 4.5,
        "stroke-linecap": "round",
      });
    case "angry":
      return (
        white(1) +
        pupil(0.5, r * 0.2, r * 0.1) +
        el("path", {
          d: `M${x - r * 1.1} ${y - r * 1.35}L${x + r * 1.1} ${y - r * 0.55}`,
          stroke: INK,
          "stroke-width": 5,
          "stroke-linecap": "round",
        })
      );
    case "dot":
      return pupil(0.6, 0) + shine(r * 0.2, -r * 0.2, 0.2);
  }
}
