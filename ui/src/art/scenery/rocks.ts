/** What falls from the sky: the burning meteorite and lumpy asteroids. */
import { FIRE, FIRE_HOT, INK, ROCK, ROCK_DARK, ROCK_LIGHT, WHITE } from "../palette";
import { ASTEROID_SIZE, METEORITE_SIZE } from "../sizes";
import { el, group, num, seededRandom, svgDocument } from "../svg";
import { LINE } from "./line";

/** A burning rock falling down to the left, its trail streaming up to the right. */
export function meteorite(): string {
  return svgDocument(METEORITE_SIZE, meteoriteDrawing());
}

/** The meteorite on its 180 × 180 grid, to place in other pictures. */
export function meteoriteDrawing(): string {
  return group(
    {},
    el("path", { d: "M38 118L162 10L176 22L64 146Z", fill: FIRE, "fill-opacity": 0.45 }),
    el("path", { d: "M44 112L150 24L162 36L62 132Z", fill: FIRE }),
    el("path", { d: "M52 110L136 42L142 50L62 122Z", fill: FIRE_HOT }),
    rock(46, 128, 30, 7, ROCK),
  );
}

/** A lumpy grey-brown rock with craters; `seed` makes each one its own shape. */
export function asteroid(seed: number): string {
  return svgDocument(ASTEROID_SIZE, rock(60, 60, 46, seed, ROCK_LIGHT));
}

function rock(cx: number, cy: number, radius: number, seed: number, fill: string): string {
  const random = seededRandom(seed);
  const corners = 11;
  const points = Array.from({ length: corners }, (_, index) => {
    const angle = (index / corners) * Math.PI * 2;
    const r = radius * (0.82 + random() * 0.22);
    return `${num(cx + Math.cos(angle) * r)} ${num(cy + Math.sin(angle) * r)}`;
  });
  const craters = Array.from({ length: 3 }, (_, index) => {
    const angle = random() * Math.PI * 2;
    const distance = index === 0 ? 0.1 : 0.45;
    return { dx: Math.cos(angle) * distance, dy: Math.sin(angle) * distance, r: index === 0 ? 0.24 : 0.1 + random() * 0.08 };
  });
  return group(
    {},
    el("path", { d: `M${points.join("L")}Z`, fill, ...LINE, "stroke-width": Math.max(4, radius / 8) }),
    el("path", {
      d: `M${num(cx - radius * 0.55)} ${num(cy - radius * 0.5)}q${num(radius * 0.3)} -${num(radius * 0.25)} ${num(radius * 0.6)} -${num(radius * 0.2)}`,
      fill: "none",
      stroke: WHITE,
      "stroke-opacity": 0.35,
      "stroke-width": radius / 9,
      "stroke-linecap": "round",
    }),
    ...craters.map((crater) =>
      el("circle", {
        cx: cx + crater.dx * radius,
        cy: cy + crater.dy * radius,
        r: crater.r * radius,
        fill: ROCK_DARK,
        stroke: INK,
        "stroke-width": Math.max(2, radius / 14),
      }),
    ),
  );
}
