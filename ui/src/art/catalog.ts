/**
 * Every picture the build writes as a file, by name, with its size. Pages use
 * this (through `ArtImage`) to size an image before it loads; the build uses it
 * with `render.ts` to write the files. It holds no drawing code, so it costs
 * the server bundle next to nothing.
 */
import { MINTED_DINOS } from "../data/dinos";
import { TEAM } from "../data/team";
import {
  ABOUT_SIZE,
  ASTEROID_SIZE,
  BACKDROPS,
  BACKDROP_SIZES,
  BADGE_SIZE,
  BONE_BAND_SIZE,
  DINO_SIZE,
  FAVICON_SIZE,
  HERO_SIZE,
  ICON_SIZE,
  METEORITE_SIZE,
  NEED_YOU_SIZE,
  STRIPE_BAND_SIZE,
  type Backdrop,
} from "./sizes";
import type { Size } from "./svg";

export type SceneName =
  | "hero"
  | "about"
  | "badge"
  | "need-you"
  | "meteorite"
  | "asteroid-1"
  | "asteroid-2"
  | "bones"
  | "stripes"
  | "favicon"
  | "icon"
  | `backdrop-${Backdrop}`;

export type ArtName = SceneName | `dino-${number}` | `team-${string}`;

const SCENE_SIZES: Readonly<Record<SceneName, Size>> = {
  hero: HERO_SIZE,
  about: ABOUT_SIZE,
  badge: BADGE_SIZE,
  "need-you": NEED_YOU_SIZE,
  meteorite: METEORITE_SIZE,
  "asteroid-1": ASTEROID_SIZE,
  "asteroid-2": ASTEROID_SIZE,
  bones: BONE_BAND_SIZE,
  stripes: STRIPE_BAND_SIZE,
  favicon: FAVICON_SIZE,
  icon: ICON_SIZE,
  ...Object.fromEntries(BACKDROPS.map((variant) => [`backdrop-${variant}`, BACKDROP_SIZES[variant]])),
} as Record<SceneName, Size>;

export function dinoArt(number: number): ArtName {
  return `dino-${number}`;
}

export function teamArt(slug: string): ArtName {
  return `team-${slug}`;
}

/** Every picture, in the order the build writes them. */
export const ART_NAMES: readonly ArtName[] = [
  ...(Object.keys(SCENE_SIZES) as SceneName[]),
  ...MINTED_DINOS.map((dino) => dinoArt(dino.number)),
  ...TEAM.map((member) => teamArt(member.slug)),
];

export function isSceneName(name: string): name is SceneName {
  return Object.hasOwn(SCENE_SIZES, name);
}

/** The picture's intrinsic size; Dinos and team portraits are all the same square. */
export function artSize(name: ArtName): Size {
  if (isSceneName(name)) return SCENE_SIZES[name];
  if (ART_NAMES.includes(name)) return DINO_SIZE;
  throw new Error(`no art named "${name}"`);
}
