/** What grows: the sprout the donations pay for, and a young tree. */
import { GREEN, GREEN_DARK, GREEN_LIGHT } from "../palette";
import { el, group, transform } from "../svg";
import { LINE } from "./line";

/** A little two-leaf plant: the new growth the donations pay for. */
export function sprout(x: number, y: number, scale: number): string {
  return group(
    { transform: transform({ x, y, scale }) },
    el("path", { d: "M0 0V-26", ...LINE, "stroke-width": 5 }),
    el("path", { d: "M0-18C-4-32-20-36-26-30C-22-20-10-16 0-18Z", fill: GREEN_LIGHT, ...LINE, "stroke-width": 4 }),
    el("path", { d: "M0-24C4-40 22-44 28-36C22-26 10-22 0-24Z", fill: GREEN, ...LINE, "stroke-width": 4 }),
  );
}

export function tree(x: number, ground: number): string {
  return group(
    {},
    el("path", { d: `M${x - 8} ${ground}L${x - 5} ${ground - 90}H${x + 5}L${x + 8} ${ground}Z`, fill: "#92400e", ...LINE }),
    el("circle", { cx: x - 26, cy: ground - 110, r: 34, fill: GREEN_DARK, ...LINE }),
    el("circle", { cx: x + 28, cy: ground - 104, r: 30, fill: GREEN_DARK, ...LINE }),
    el("circle", { cx: x, cy: ground - 140, r: 40, fill: GREEN, ...LINE }),
    el("circle", { cx: x - 14, cy: ground - 150, r: 8, fill: GREEN_LIGHT }),
  );
}
