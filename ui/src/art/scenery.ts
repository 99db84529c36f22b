/**
 * Everything around the Dinos: the night sky of the intro, falling meteorites,
 * asteroids, the spinning badge, the bone and stripe bands, and the scenes
 * that put Dinos on a hill or on the Earth.
 */
import { drawDino, type DinoSpec } from "./dino";
import {
  BONE,
  BONE_SHADE,
  FIRE,
  FIRE_HOT,
  GREEN,
  GREEN_DARK,
  GREEN_DEEP,
  GREEN_LIGHT,
  INK,
  NIGHT,
  NIGHT_GLOW,
  OCEAN,
  ROCK,
  ROCK_DARK,
  ROCK_LIGHT,
  WHITE,
} from "./palette";
import { letter } from "./pixelFont";
import {
  ABOUT_SIZE,
  ASTEROID_SIZE,
  BACKDROP_SIZES,
  BADGE_SIZE,
  BONE_BAND_SIZE,
  HERO_SIZE,
  METEORITE_SIZE,
  NEED_YOU_SIZE,
  STRIPE_BAND_SIZE,
  type Backdrop,
} from "./sizes";
import { el, group, nested, num, seededRandom, svgDocument, transform, type Size } from "./svg";

const LINE = { stroke: INK, "stroke-width": 6, "stroke-linejoin": "round", "stroke-linecap": "round" } as const;

/** The Dino who fronts the site, in the brand green. */
export const MASCOT: DinoSpec = {
  body: "rex",
  colors: { skin: GREEN, belly: "#dcfce7", pattern: GREEN_DARK },
  eyes: "big",
  pattern: "spots",
  accessories: [],
};

export const FRIEND: DinoSpec = {
  body: "tricera",
  colors: { skin: "#a78bfa", belly: "#ede9fe", pattern: "#f472b6" },
  eyes: "happy",
  pattern: "spots",
  accessories: [],
};

/** A Dino drawn `size` units wide with its top left at `x`,`y`. */
export function placeDino(spec: DinoSpec, x: number, y: number, size: number): string {
  return nested({ x, y, width: size, height: size }, { width: 200, height: 200 }, drawDino(spec));
}

/** The intro picture: the mascot and a friend on a hill, talking about the end of the world. */
export function hero(): string {
  return svgDocument(
    HERO_SIZE,
    floatingIsland(),
    sprout(474, 382, 1.1),
    sprout(92, 388, 0.8),
    placeDino(FRIEND, 14, 200, 196),
    placeDino(MASCOT, 160, 70, 320),
    speechBubble(378, 20, 166, 104, { x: 414, y: 194 }),
  );
}

/** A lump of ground drifting in the night: grass on top, rock below. */
function floatingIsland(): string {
  return group(
    {},
    el("path", {
      d: "M40 400Q70 444 160 456Q230 478 300 476Q400 472 456 450Q516 430 528 400Z",
      fill: ROCK_DARK,
      ...LINE,
    }),
    el("path", { d: "M120 440Q200 458 280 456M330 462Q400 456 450 436", fill: "none", stroke: ROCK, "stroke-width": 6, "stroke-linecap": "round" }),
    el("path", {
      d: "M24 396C40 370 160 362 290 362C420 362 530 372 540 396C530 416 420 424 290 424C150 424 30 418 24 396Z",
      fill: GREEN_DEEP,
      ...LINE,
    }),
    el("path", { d: "M60 392C110 378 200 372 290 372C380 372 460 378 506 390", fill: "none", stroke: GREEN_DARK, "stroke-width": 7, "stroke-linecap": "round" }),
  );
}

/** A rounded bubble with three dots and a tail pointing at `tip`. */
function speechBubble(x: number, y: number, width: number, height: number, tip: { x: number; y: number }): string {
  const tailBase = x + width * 0.28;
  const bottom = y + height;
  return group(
    {},
    el("path", {
      d: `M${x + 20} ${y}H${x + width - 20}Q${x + width} ${y} ${x + width} ${y + 20}V${bottom - 20}Q${x + width} ${bottom} ${x + width - 20} ${bottom}H${tailBase + 30}L${tip.x} ${tip.y}L${tailBase} ${bottom}H${x + 20}Q${x} ${bottom} ${x} ${bottom - 20}V${y + 20}Q${x} ${y} ${x + 20} ${y}Z`,
      fill: BONE,
      ...LINE,
    }),
    ...[0.28, 0.5, 0.72].map((at) => el("circle", { cx: x + width * at, cy: y + height / 2, r: 10, fill: GREEN_DARK })),
  );
}

/** A little two-leaf plant: the new growth the donations pay for. */
export function sprout(x: number, y: number, scale: number): string {
  return group(
    { transform: transform({ x, y, scale }) },
    el("path", { d: "M0 0V-26", ...LINE, "stroke-width": 5 }),
    el("path", { d: "M0-18C-4-32-20-36-26-30C-22-20-10-16 0-18Z", fill: GREEN_LIGHT, ...LINE, "stroke-width": 4 }),
    el("path", { d: "M0-24C4-40 22-44 28-36C22-26 10-22 0-24Z", fill: GREEN, ...LINE, "stroke-width": 4 }),
  );
}

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

function tree(x: number, ground: number): string {
  return group(
    {},
    el("path", { d: `M${x - 8} ${ground}L${x - 5} ${ground - 90}H${x + 5}L${x + 8} ${ground}Z`, fill: "#92400e", ...LINE }),
    el("circle", { cx: x - 26, cy: ground - 110, r: 34, fill: GREEN_DARK, ...LINE }),
    el("circle", { cx: x + 28, cy: ground - 104, r: 30, fill: GREEN_DARK, ...LINE }),
    el("circle", { cx: x, cy: ground - 140, r: 40, fill: GREEN, ...LINE }),
    el("circle", { cx: x - 14, cy: ground - 150, r: 8, fill: GREEN_LIGHT }),
  );
}

/** The mascot calling through a megaphone, on a green disc. */
export function needYouScene(): string {
  return svgDocument(
    NEED_YOU_SIZE,
    el("circle", { cx: 200, cy: 200, r: 190, fill: GREEN, stroke: INK, "stroke-width": 8 }),
    el("circle", { cx: 200, cy: 200, r: 150, fill: "none", stroke: GREEN_LIGHT, "stroke-width": 6, "stroke-dasharray": "4 18", "stroke-linecap": "round" }),
    placeDino({ ...MASCOT, colors: { ...MASCOT.colors, skin: "#f4ecd6", belly: WHITE, pattern: "#d9ccaa" }, eyes: "round", accessories: ["megaphone", "bandana"] }, 36, 50, 300),
  );
}

/** A row of bones, tilted this way and that: wide enough for any screen, cropped in the middle. */
export function boneBand(): string {
  const random = seededRandom(42);
  const bones = Array.from({ length: 16 }, (_, index) => {
    const x = 60 + index * 120 + (random() - 0.5) * 20;
    const y = 48 + (random() - 0.5) * 12;
    const rotate = (index % 2 === 0 ? -1 : 1) * (14 + random() * 14);
    return group({ transform: transform({ x, y, rotate }) }, boneShape());
  });
  return svgDocument(BONE_BAND_SIZE, ...bones);
}

function boneShape(): string {
  const parts = [
    el("rect", { x: -34, y: -7, width: 68, height: 14, rx: 4 }),
    ...[-1, 1].flatMap((side) => [-1, 1].map((end) => el("circle", { cx: side * 36, cy: end * 8, r: 10 }))),
  ];
  return (
    group({ fill: INK, stroke: INK, "stroke-width": 10 }, ...parts) +
    group({ fill: BONE }, ...parts) +
    el("path", { d: "M-26 3H22", stroke: BONE_SHADE, "stroke-width": 4, "stroke-linecap": "round" })
  );
}

/** Black diagonal lines on green, like tape around a place that is about to go. */
export function stripeBand(): string {
  return svgDocument(STRIPE_BAND_SIZE, stripes(STRIPE_BAND_SIZE.width));
}

/** The stripe band `width` long and 48 high, to place in other pictures. */
export function stripes(width: number): string {
  const lines = Array.from({ length: Math.ceil(width / 48) + 2 }, (_, index) => {
    const x = index * 48 - 48;
    return `M${x} 48L${x + 24} 0H${x + 48}L${x + 24} 48Z`;
  });
  return group(
    {},
    el("rect", { width, height: 48, fill: GREEN }),
    el("path", { d: lines.join(""), fill: INK }),
    el("path", { d: `M0 2H${width}M0 46H${width}`, stroke: INK, "stroke-width": 4 }),
  );
}

/**
 * Where things sit in each layout, as fractions of the drawing: clear of the
 * heading and text, which are on the left (above the hero on phones).
 */
const BACKDROP_LAYOUTS: Readonly<
  Record<Backdrop, { horizon: number; volcanoX: number; volcanoWidth: number; moon: { x: number; y: number; r: number } }>
> = {
  mobile: { horizon: 0.8, volcanoX: 0.2, volcanoWidth: 0.5, moon: { x: 0.86, y: 0.045, r: 0.05 } },
  tablet: { horizon: 0.78, volcanoX: 0.76, volcanoWidth: 0.3, moon: { x: 0.56, y: 0.15, r: 0.05 } },
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
