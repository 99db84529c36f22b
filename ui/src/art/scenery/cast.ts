/** The Dinos who appear in the scenes, and how a scene places one. */
import { drawDino, type DinoSpec } from "../dino";
import { GREEN, GREEN_DARK } from "../palette";
import { nested } from "../svg";

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
