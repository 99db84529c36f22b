/**
 * Small marks drawn inline in the page, so they take the text colour and need
 * no request: the logo's Dino head and the line icons of the menu's buttons.
 * This module stays tiny because the menu island ships it to the browser.
 */

/** A T-rex head in profile on a 32 × 32 grid, facing right. */
export const DINO_HEAD = {
  size: 32,
  head: "M6 28V19C6 10 12 4.5 19.5 4.5C26.5 4.5 30.5 8.5 30.5 14C30.5 18.5 28 21 24.5 21H19L17.5 28Z",
  spikes: "M7.5 13.5L3 12L6.5 9.5L3.5 6.5L8.5 6.5L9 2.5L12.5 5.5Z",
  eye: { cx: 20.5, cy: 11, r: 2.4 },
  nostril: { cx: 27.6, cy: 9.4, r: 0.9 },
  mouth: "M18 17.2Q23 18.6 28.6 16.4",
  teeth: "M21.6 17.9h2.6l-1.3 2.1zM25.6 17.6h2.4l-1.2 1.9z",
} as const;

/** The head on a rounded green tile, as the logo and the favicon show it. */
export const DINO_TILE = { radius: 7, headTransform: "translate(-1.2 0.4) scale(0.94)" } as const;

export type GlyphName = "menu" | "close";

/** Stroked paths on a 24 × 24 grid, drawn 2 units wide with round ends. */
export const GLYPHS: Readonly<Record<GlyphName, readonly string[]>> = {
  menu: ["M4 7h16M4 12h16M4 17h16"],
  close: ["M6 6l12 12M18 6L6 18"],
};
