/** The "we need you" picture: the mascot with a megaphone. */
import { GREEN, GREEN_LIGHT, INK, WHITE } from "../palette";
import { NEED_YOU_SIZE } from "../sizes";
import { el, svgDocument } from "../svg";
import { MASCOT, placeDino } from "./cast";

/** The mascot calling through a megaphone, on a green disc. */
export function needYouScene(): string {
  return svgDocument(
    NEED_YOU_SIZE,
    el("circle", { cx: 200, cy: 200, r: 190, fill: GREEN, stroke: INK, "stroke-width": 8 }),
    el("circle", { cx: 200, cy: 200, r: 150, fill: "none", stroke: GREEN_LIGHT, "stroke-width": 6, "stroke-dasharray": "4 18", "stroke-linecap": "round" }),
    placeDino({ ...MASCOT, colors: { ...MASCOT.colors, skin: "#f4ecd6", belly: WHITE, pattern: "#d9ccaa" }, eyes: "round", accessories: ["megaphone", "bandana"] }, 22, 50, 300),
  );
}
