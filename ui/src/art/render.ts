/**
 * Draws each picture of the catalogue. Only the build (and tests) import this:
 * pages refer to the files it writes, never to the drawing code.
 */
import { MINTED_DINOS } from "../data/dinos";
import { TEAM } from "../data/team";
import { appIcon, favicon, openGraphCard, phraseCardBackdrop } from "./brand";
import { ART_NAMES, dinoArt, isSceneName, teamArt, type ArtName, type SceneName } from "./catalog";
import { dinoPortrait } from "./dino";
import { aboutScene } from "./scenery/about";
import { backdrop } from "./scenery/backdrop";
import { badge } from "./scenery/badge";
import { boneBand, stripeBand } from "./scenery/bands";
import { hero } from "./scenery/hero";
import { needYouScene } from "./scenery/needYou";
import { asteroid, meteorite } from "./scenery/rocks";

const SCENES: Readonly<Record<SceneName, () => string>> = {
  hero,
  about: aboutScene,
  badge,
  "need-you": needYouScene,
  meteorite,
  "asteroid-1": () => asteroid(3),
  "asteroid-2": () => asteroid(11),
  bones: boneBand,
  stripes: stripeBand,
  favicon,
  icon: appIcon,
  "backdrop-mobile": () => backdrop("mobile"),
  "backdrop-tablet": () => backdrop("tablet"),
  "backdrop-landscape": () => backdrop("landscape"),
  "backdrop-desktop": () => backdrop("desktop"),
  "backdrop-wide": () => backdrop("wide"),
};

const PORTRAITS: ReadonlyMap<ArtName, () => string> = new Map([
  ...MINTED_DINOS.map((dino) => [dinoArt(dino.number), () => dinoPortrait(dino.spec, dino.background)] as const),
  ...TEAM.map((member) => [teamArt(member.slug), () => dinoPortrait(member.spec, member.background)] as const),
]);

/** The SVG file of one picture. */
export function renderArt(name: ArtName): string {
  const draw = isSceneName(name) ? SCENES[name] : PORTRAITS.get(name);
  if (!draw) throw new Error(`no art named "${name}"`);
  return draw();
}

/** Every picture of the catalogue, as `[name, svg]`. */
export function renderCatalog(): [ArtName, string][] {
  return ART_NAMES.map((name) => [name, renderArt(name)]);
}

/** Pictures the host rasterises at build time rather than serves as SVG. */
export const RASTER_SOURCES = {
  /** The 1200 × 630 Open Graph card. */
  og: openGraphCard,
  /** The square app icon, rasterised at 32, 180, 192 and 512 pixels. */
  icon: appIcon,
} as const;

/** Pictures the host rasterises at run time, under text it lays out itself. */
export const CARD_SOURCES = {
  /** The 1200 × 630 backdrop of every phrase's card. */
  backdrop: phraseCardBackdrop,
} as const;
