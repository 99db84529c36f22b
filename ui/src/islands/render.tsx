/**
 * How an island is rendered from its page, given the component that draws it: the
 * server has every island's component at hand (`./index`), the browser loads only the
 * ones its page has (`./load`).
 *
 * An island hydrates as its own React root, so `useId` would not match the
 * id the server produced inside the whole page: islands use fixed ids.
 */
import type { ReactElement } from "react";
import type { RenderRequest } from "../types";
import type { MobileMenu } from "./MobileMenu";
import type { PhraseLive } from "./PhraseLive";
import type { WordsLive } from "./WordsLive";

/** Every island, by the name the markup carries (`data-island`). */
const ISLAND_NAMES = ["menu", "words", "phrase"] as const;

export type IslandName = (typeof ISLAND_NAMES)[number];

/** The component of each island. */
export interface IslandParts {
  menu: typeof MobileMenu;
  words: typeof WordsLive;
  phrase: typeof PhraseLive;
}

export function isIslandName(value: unknown): value is IslandName {
  return typeof value === "string" && (ISLAND_NAMES as readonly string[]).includes(value);
}

/** Renders island `name` of `page` with its component among `parts`, failing loudly if the page cannot feed it. */
export function renderWith(name: IslandName, page: RenderRequest, parts: Partial<IslandParts>): ReactElement {
  switch (name) {
    case "menu": {
      const Menu = part(name, parts.menu);
      return <Menu site={page.props.site} onHome={page.route === "home"} />;
    }
    case "words": {
      if (page.route !== "words") throw new Error(`island "words" needs the words page, got "${page.route}"`);
      const Words = part(name, parts.words);
      return <Words {...page.props} />;
    }
    case "phrase": {
      if (page.route !== "phrase") throw new Error(`island "phrase" needs a phrase's page, got "${page.route}"`);
      const Phrase = part(name, parts.phrase);
      return <Phrase {...page.props} />;
    }
  }
}

function part<Part>(name: IslandName, found: Part | undefined): Part {
  if (found === undefined) throw new Error(`island "${name}" was not loaded`);
  return found;
}
