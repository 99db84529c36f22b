/**
 * The parts of a page that hydrate, as the server renders them (inside `<Island>`);
 * the browser renders the same from the same page request (`./load`), so both produce
 * the same markup.
 */
import type { ReactElement } from "react";
import type { RenderRequest } from "../types";
import { MobileMenu } from "./MobileMenu";
import { PhraseLive } from "./PhraseLive";
import { type IslandName, type IslandParts, renderWith } from "./render";
import { WordsLive } from "./WordsLive";

export { type IslandName, isIslandName } from "./render";

const PARTS: IslandParts = { menu: MobileMenu, words: WordsLive, phrase: PhraseLive };

/** Renders island `name` for any page, failing loudly if the page cannot feed it. */
export function renderIsland(name: IslandName, page: RenderRequest): ReactElement {
  return renderWith(name, page, PARTS);
}
