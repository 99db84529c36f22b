/** The night sky and its stars, shared by the backdrops, the about scene and the card. */
import { GREEN_DEEP, NIGHT, NIGHT_GLOW, WHITE } from "../palette";
import { el, num, type Size } from "../svg";

/** The night: black overhead, glowing green at the horizon. Uses the id `sky`, once per picture. */
export function nightSky({ width, height }: Size): string {
  return (
    el(
      "defs",
      {},
      el(
        "linearGradient",
        { id: "sky", x1: 0, y1: 0, x2: 0, y2: 1 },
        el("stop", { offset: 0, "stop-color": NIGHT }),
        el("stop", { offset: 0.7, "stop-color": NIGHT_GLOW }),
        el("stop", { offset: 1, "stop-color": GREEN_DEEP }),
      ),
    ) + el("rect", { width, height, fill: "url(#sky)" })
  );
}

export function stars(random: () => number, area: Size, count: number): string {
  let d = "";
  for (let index = 0; index < count; index += 1) {
    const x = random() * area.width;
    const y = random() * area.height;
    const r = 0.8 + random() * 1.6;
    d += `M${num(x - r)} ${num(y)}a${num(r)} ${num(r)} 0 1 0 ${num(r * 2)} 0a${num(r)} ${num(r)} 0 1 0 -${num(r * 2)} 0`;
  }
  return el("path", { d, fill: WHITE, "fill-opacity": 0.7 });
}
