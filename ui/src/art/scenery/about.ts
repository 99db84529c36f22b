/** The about section's picture: the Earth at night, a tree and a Dino. */
import { BONE, BONE_SHADE, GREEN, GREEN_LIGHT, INK, NIGHT, OCEAN } from "../palette";
import { ABOUT_SIZE } from "../sizes";
import { el, group, seededRandom, svgDocument } from "../svg";
import { placeDino } from "./cast";
import { tree } from "./plants";
import { stars } from "./sky";

/** The Earth at night with a young tree on it and a Dino looking after it. */
export function aboutScene(): string {
  const random = seededRandom(7);
  return svgDocument(
    ABOUT_SIZE,
    el("rect", { width: 480, height: 480, rx: 36, fill: NIGHT }),
    stars(random, { width: 480, height: 300 }, 28),
    el("circle", { cx: 380, cy: 96, r: 34, fill: BONE }),
    el("circle", { cx: 368, cy: 86, r: 7, fill: BONE_SHADE }),
    el("circle", { cx: 392, cy: 108, r: 5, fill: BONE_SHADE }),
    group(
      {},
      el("circle", { cx: 240, cy: 760, r: 460, fill: OCEAN, stroke: INK, "stroke-width": 8 }),
      el("path", { d: "M-10 360C60 320 150 300 240 300C330 300 420 320 490 360V490H-10Z", fill: GREEN, stroke: INK, "stroke-width": 8 }),
      el("path", { d: "M40 372C110 342 170 332 240 332", stroke: GREEN_LIGHT, "stroke-width": 8, "stroke-linecap": "round", fill: "none" }),
    ),
    tree(340, 318),
    placeDino(
      {
        body: "bronto",
        colors: { skin: "#fb923c", belly: "#ffedd5", pattern: "#c2410c" },
        eyes: "happy",
        pattern: "spots",
        accessories: ["scarf"],
      },
      40,
      150,
      250,
    ),
    el("rect", { x: 3, y: 3, width: 474, height: 474, rx: 34, fill: "none", stroke: INK, "stroke-width": 6 }),
  );
}
