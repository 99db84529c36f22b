/**
 * The brand pictures: the app icon and favicon (the Dino head on green) and
 * the Open Graph card. Lettering is drawn in the pixel font, never as text,
 * because the card is rasterised where no fonts may be installed. And the
 * backdrop of each phrase's card, on which the host sets the phrase, its
 * author and a Dino with its own bundled fonts at run time.
 */
import { DINO_HEAD, DINO_TILE } from "./glyphs";
import { BONE, GREEN, GREEN_DEEP, INK } from "./palette";
import { pixelText } from "./pixelFont";
import { stripes } from "./scenery/bands";
import { FRIEND, MASCOT, placeDino } from "./scenery/cast";
import { sprout } from "./scenery/plants";
import { meteoriteDrawing } from "./scenery/rocks";
import { nightSky, stars } from "./scenery/sky";
import { el, group, seededRandom, svgDocument, transform } from "./svg";
import { FAVICON_SIZE, ICON_SIZE, OG_SIZE } from "./sizes";
import type { DinoSpec } from "./dino";

/** The Dino head in INK on its 32-unit grid, eye and mouth cut out in `ground`. */
export function dinoHead(ground: string): string {
  return group(
    {},
    el("path", { d: DINO_HEAD.spikes, fill: INK }),
    el("path", { d: DINO_HEAD.head, fill: INK }),
    el("circle", { ...DINO_HEAD.eye, fill: ground }),
    el("circle", { ...DINO_HEAD.nostril, fill: ground }),
    el("path", { d: DINO_HEAD.teeth, fill: ground }),
    el("path", { d: DINO_HEAD.mouth, fill: "none", stroke: ground, "stroke-width": 1.6, "stroke-linecap": "round" }),
  );
}

/**
 * The app icon: full-bleed green, the head inside the middle 60 % so platforms
 * that cut it to a circle or a rounded square keep all of it.
 */
export function appIcon(): string {
  const scale = 10.5;
  return svgDocument(
    ICON_SIZE,
    el("rect", { width: 512, height: 512, fill: GREEN }),
    group({ transform: transform({ x: 256 - 17.5 * scale, y: 256 - 16.5 * scale, scale }) }, dinoHead(GREEN)),
  );
}

/** The favicon: the same head on a rounded square, filling more of the tiny box. */
export function favicon(): string {
  return svgDocument(
    FAVICON_SIZE,
    el("rect", { width: 32, height: 32, rx: DINO_TILE.radius, fill: GREEN }),
    group({ transform: DINO_TILE.headTransform }, dinoHead(GREEN)),
  );
}

const STEGO: DinoSpec = {
  body: "stego",
  colors: { skin: "#60a5fa", belly: "#dbeafe", pattern: "#facc15" },
  eyes: "round",
  pattern: "plain",
  accessories: [],
};

/** The card shown when a link to the site is shared: the name in big blocks and three Dinos. */
export function openGraphCard(): string {
  const random = seededRandom(2022);
  const title = 17;
  return svgDocument(
    OG_SIZE,
    nightSky(OG_SIZE),
    stars(random, { width: 1200, height: 460 }, 90),
    group({ transform: "translate(1010 10) scale(0.9)" }, meteoriteDrawing()),
    el("rect", { x: 70, y: 50, width: 64, height: 64, rx: 14, fill: GREEN }),
    group({ transform: "translate(70 52) scale(1.9)" }, dinoHead(GREEN)),
    pixelText("DINOS", 156, 62, 6, BONE),
    pixelText("LAST", 70, 160, title, GREEN),
    pixelText("WORDS", 70, 160 + 9 * title, title, BONE),
    pixelText("#MYLASTWORDS", 72, 160 + 18 * title + 8, 5, GREEN),
    el("path", { d: "M500 600Q560 500 700 460Q880 430 1060 452Q1160 466 1220 500V600Z", fill: GREEN_DEEP, stroke: INK, "stroke-width": 6 }),
    sprout(1150, 492, 1),
    placeDino(FRIEND, 580, 318, 200),
    placeDino(STEGO, 990, 318, 200),
    placeDino(MASCOT, 730, 120, 340),
    group({ transform: "translate(0 582)" }, stripes(1200)),
  );
}

/**
 * The backdrop of a phrase's card (1200 × 630): the night, a meteor falling
 * towards the Dino's frame on the right, a hill under it and the stripes. It
 * has no lettering and leaves the left two thirds calm for the phrase; the
 * host draws the brand tile's name, the phrase, "By …" and the framed Dino
 * (`server/src/render/card`), so this picture is the same for every phrase.
 */
export function phraseCardBackdrop(): string {
  const random = seededRandom(1066);
  return svgDocument(
    OG_SIZE,
    nightSky(OG_SIZE),
    stars(random, { width: 1200, height: 560 }, 70),
    el("path", { d: "M790 630Q840 530 960 506Q1090 490 1220 520V630Z", fill: GREEN_DEEP, stroke: INK, "stroke-width": 6 }),
    sprout(1165, 512, 1),
    group({ transform: "translate(1090 0) scale(0.62)" }, meteoriteDrawing()),
    el("rect", { x: 70, y: 50, width: 64, height: 64, rx: 14, fill: GREEN }),
    group({ transform: "translate(70 52) scale(1.9)" }, dinoHead(GREEN)),
    group({ transform: "translate(0 582)" }, stripes(1200)),
  );
}
