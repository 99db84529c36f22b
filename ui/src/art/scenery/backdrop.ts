/** The intro's backdrops: night, moon, hills and a smoking volcano, one per layout. */
import { BONE, BONE_SHADE, FIRE, FIRE_HOT, GREEN_DARK, GREEN_DEEP } from "../palette";
import { BACKDROP_SIZES, type Backdrop } from "../sizes";
import { el, group, num, seededRandom, svgDocument } from "../svg";
import { nightSky, stars } from "./sky";

/**
 * Where things sit in each layout, as fractions of the drawing: clear of the
 * heading and text, which are on the left (above the hero on phones).
 */
const BACKDROP_LAYOUTS: Readonly<
  Record<Backdrop, { horizon: number; volcanoX: number; volcanoWidth: number; moon: { x: number; y: number; r: number } }>
> = {
  mobile: { horizon: 0.8, volcanoX: 0.2, volcanoWidth: 0.5, moon: { x: 0.86, y: 0.045, r: 0.05 } },
  tablet: { horizon: 0.78, volcanoX: 0.76, volcanoWidth: 0.3, moon: { x: 0.74, y: 0.052, r: 0.032 } },
  landscape: { horizon: 0.8, volcanoX: 0.52, volcanoWidth: 0.26, moon: { x: 0.8, y: 0.19, r: 0.04 } },
  desktop: { horizon: 0.74, volcanoX: 0.52, volcanoWidth: 0.24, moon: { x: 0.5, y: 0.12, r: 0.06 } },
  wide: { horizon: 0.74, volcanoX: 0.5, volcanoWidth: 0.18, moon: { x: 0.52, y: 0.12, r: 0.06 } },
};

/**
 * The intro's night: a sky fading to green at the horizon, stars, a pale moon,
 * and a range of hills with a smoking volcano. Each layout gets its own
 * composition rather than a crop of one.
 */
export function backdrop(variant: Backdrop): string {
  const size = BACKDROP_SIZES[variant];
  const { width, height } = size;
  const random = seededRandom(variant.length * 97 + width);
  const layout = BACKDROP_LAYOUTS[variant];
  const horizon = height * layout.horizon;
  const volcanoX = width * layout.volcanoX;
  const moonX = width * layout.moon.x;
  const moonY = height * layout.moon.y;
  const moonR = Math.min(width, height) * layout.moon.r;
  return svgDocument(
    size,
    nightSky(size),
    stars(random, { width, height: horizon }, Math.round((width * horizon) / 9000)),
    el("circle", { cx: moonX, cy: moonY, r: moonR, fill: BONE, "fill-opacity": 0.9 }),
    el("circle", { cx: moonX - moonR * 0.35, cy: moonY - moonR * 0.2, r: moonR * 0.2, fill: BONE_SHADE }),
    el("circle", { cx: moonX + moonR * 0.3, cy: moonY + moonR * 0.35, r: moonR * 0.14, fill: BONE_SHADE }),
    volcano(volcanoX, horizon, width * layout.volcanoWidth),
    hills(random, width, height, horizon),
  );
}

function volcano(x: number, base: number, width: number): string {
  const height = width * 0.42;
  const top = base - height;
  const crater = width * 0.09;
  const at = (dx: number, dy: number) => `${num(x + dx)} ${num(dy)}`;
  return group(
    {},
    el("path", {
      d: `M${at(crater * 0.4, top - 10)}c-${num(crater)} -${num(height * 0.2)} ${num(crater * 1.6)} -${num(height * 0.3)} ${num(crater * 0.6)} -${num(height * 0.55)}`,
      fill: "none",
      stroke: "#24473a",
      "stroke-width": crater * 0.9,
      "stroke-linecap": "round",
    }),
    el("ellipse", { cx: x, cy: top, rx: crater * 2.6, ry: crater * 1.2, fill: FIRE, "fill-opacity": 0.16 }),
    el("path", { d: `M${at(-width / 2, base)}L${at(-crater, top)}L${at(crater, top)}L${at(width / 2, base)}Z`, fill: "#1b4a31" }),
    el("path", { d: `M${at(0, top)}L${at(crater, top)}L${at(width / 2, base)}L${at(width * 0.08, base)}Z`, fill: "#133a26" }),
    el("path", {
      d:
        `M${at(-crater, top)}L${at(crater, top)}L${at(crater * 1.25, top + height * 0.12)}` +
        `L${at(crater * 0.5, top + height * 0.1)}L${at(crater * 0.2, top + height * 0.42)}L${at(-crater * 0.3, top + height * 0.12)}` +
        `L${at(-crater * 1.3, top + height * 0.14)}Z`,
      fill: FIRE,
    }),
    el("path", { d: `M${at(-crater * 0.7, top + 2)}L${at(crater * 0.7, top + 2)}`, stroke: FIRE_HOT, "stroke-width": crater * 0.25, "stroke-linecap": "round" }),
  );
}

function hills(random: () => number, width: number, height: number, horizon: number): string {
  const far = ridge(random, width, horizon, height * 0.05, 5);
  const near = ridge(random, width, horizon + height * 0.08, height * 0.04, 4);
  return group(
    {},
    el("path", { d: `${far}V${height}H0Z`, fill: "#0e3321" }),
    el("path", { d: `${near}V${height}H0Z`, fill: GREEN_DEEP }),
    el("path", { d: near, fill: "none", stroke: GREEN_DARK, "stroke-opacity": 0.5, "stroke-width": 4 }),
  );
}

/** A wavy skyline from the left edge to the right, `bumps` hills high at most `amplitude`. */
function ridge(random: () => number, width: number, baseline: number, amplitude: number, bumps: number): string {
  const step = width / bumps;
  let d = `M0 ${num(baseline)}`;
  for (let index = 0; index < bumps; index += 1) {
    const peak = baseline - amplitude * (0.4 + random() * 0.6);
    d += `Q${num(step * index + step / 2)} ${num(peak)} ${num(step * (index + 1))} ${num(baseline)}`;
  }
  return d;
}
