/**
 * How big each picture is. Pages read these for `width` and `height`, so an
 * image's box is known before it loads; the drawings read them too, so the two
 * never disagree. Kept apart from the drawings, which only the build needs.
 */
import type { Size } from "./svg";

export const DINO_SIZE: Size = { width: 200, height: 200 };
export const HERO_SIZE: Size = { width: 560, height: 480 };
export const ABOUT_SIZE: Size = { width: 480, height: 480 };
export const BADGE_SIZE: Size = { width: 240, height: 240 };
export const NEED_YOU_SIZE: Size = { width: 400, height: 400 };
export const METEORITE_SIZE: Size = { width: 180, height: 180 };
export const ASTEROID_SIZE: Size = { width: 120, height: 120 };
export const BONE_BAND_SIZE: Size = { width: 1920, height: 96 };
export const STRIPE_BAND_SIZE: Size = { width: 1920, height: 48 };
export const FAVICON_SIZE: Size = { width: 32, height: 32 };
export const ICON_SIZE: Size = { width: 512, height: 512 };
export const OG_SIZE: Size = { width: 1200, height: 630 };

/**
 * Where the intro's background can be shown: one drawing per layout. `tablet` is the
 * one column above phones, `landscape` the two columns below desktops.
 */
export type Backdrop = "mobile" | "tablet" | "landscape" | "desktop" | "wide";

export const BACKDROPS: readonly Backdrop[] = ["mobile", "tablet", "landscape", "desktop", "wide"];

export const BACKDROP_SIZES: Readonly<Record<Backdrop, Size>> = {
  mobile: { width: 480, height: 1040 },
  tablet: { width: 960, height: 1040 },
  landscape: { width: 1100, height: 800 },
  desktop: { width: 1600, height: 900 },
  wide: { width: 2400, height: 1000 },
};
