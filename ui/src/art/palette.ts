/** The colours every drawing shares: the site's black and green, with bone and fire. */
export const INK = "#0b1410";
export const NIGHT = "#04100a";
export const NIGHT_GLOW = "#0d2a1a";
export const GREEN = "#22c55e";
export const GREEN_LIGHT = "#86efac";
export const GREEN_DARK = "#15803d";
export const GREEN_DEEP = "#0f3d24";
export const BONE = "#f4ecd6";
export const BONE_SHADE = "#d9ccaa";
export const FIRE = "#fb923c";
export const FIRE_HOT = "#fde047";
export const ROCK = "#6b5a4e";
export const ROCK_LIGHT = "#8c7868";
export const ROCK_DARK = "#4a3d35";
export const WHITE = "#ffffff";
export const BLUSH = "#fb7185";
export const SKY_BLUE = "#38bdf8";
export const OCEAN = "#0e4d64";

/** `hex` mixed towards black (`amount` < 0) or white (`amount` > 0). */
export function shade(hex: string, amount: number): string {
  const value = Number.parseInt(hex.slice(1), 16);
  const target = amount < 0 ? 0 : 255;
  const weight = Math.min(Math.abs(amount), 1);
  const channel = (shift: number) => {
    const c = (value >> shift) & 0xff;
    return Math.round(c + (target - c) * weight)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${channel(16)}${channel(8)}${channel(0)}`;
}
