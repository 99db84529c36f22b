/** The intro picture: two Dinos on a floating island, talking. */
import { BONE, GREEN_DARK, GREEN_DEEP, ROCK, ROCK_DARK } from "../palette";
import { HERO_SIZE } from "../sizes";
import { el, group, svgDocument } from "../svg";
import { FRIEND, MASCOT, placeDino } from "./cast";
import { LINE } from "./line";
import { sprout } from "./plants";

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
