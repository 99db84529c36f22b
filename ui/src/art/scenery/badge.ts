/** The turning badge: the Earth ringed by lettering. */
import { BONE, GREEN, GREEN_LIGHT, INK, OCEAN } from "../palette";
import { letter } from "../pixelFont";
import { BADGE_SIZE } from "../sizes";
import { el, group, num, svgDocument } from "../svg";

/** A round badge, the Earth ringed by "SAVE THE WORLD * LAST WORDS *": it turns slowly on the page. */
export function badge(): string {
  const ring = "SAVE THE WORLD * LAST WORDS * ";
  const pixel = 2.6;
  const glyphs = [...ring].map((char, index) => {
    const { d, width } = letter(char);
    const angle = (index / ring.length) * 360;
    return el("path", {
      d,
      fill: INK,
      transform: `rotate(${num(angle)} 120 120) translate(${num(120 - (width * pixel) / 2)} 20) scale(${pixel})`,
    });
  });
  return svgDocument(
    BADGE_SIZE,
    el("circle", { cx: 120, cy: 120, r: 114, fill: BONE, stroke: INK, "stroke-width": 6 }),
    ...glyphs,
    earth(120, 120, 70),
  );
}

/** The globe: ocean and green continents, outlined like everything else. */
function earth(cx: number, cy: number, r: number): string {
  const s = r / 100;
  const at = (x: number, y: number) => `${num(cx + x * s)} ${num(cy + y * s)}`;
  return group(
    {},
    el("circle", { cx, cy, r, fill: OCEAN, stroke: INK, "stroke-width": 6 }),
    el("path", {
      d: `M${at(-70, -50)}C${at(-40, -80)} ${at(0, -70)} ${at(10, -40)}C${at(20, -10)} ${at(-20, 0)} ${at(-30, 30)}C${at(-40, 60)} ${at(-70, 40)} ${at(-80, 10)}C${at(-90, -20)} ${at(-85, -35)} ${at(-70, -50)}Z`,
      fill: GREEN,
      stroke: INK,
      "stroke-width": 4,
    }),
    el("path", {
      d: `M${at(30, -80)}C${at(60, -80)} ${at(90, -40)} ${at(80, 0)}C${at(70, 20)} ${at(40, 10)} ${at(30, 30)}C${at(20, 60)} ${at(50, 70)} ${at(30, 90)}C${at(0, 90)} ${at(10, 50)} ${at(0, 30)}C${at(-10, 0)} ${at(30, -20)} ${at(20, -50)}Z`,
      fill: GREEN,
      stroke: INK,
      "stroke-width": 4,
    }),
    el("path", { d: `M${at(-60, -30)}q${10 * s} -${14 * s} ${26 * s} -${10 * s}`, stroke: GREEN_LIGHT, "stroke-width": 5, "stroke-linecap": "round", fill: "none" }),
  );
}
