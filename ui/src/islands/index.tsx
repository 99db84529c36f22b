/**
 * The parts of a page that hydrate. Each entry runs on the server (inside
 * `<Island>`) and in the browser (`client.tsx`) with the same page request, so
 * both render the same markup.
 *
 * An island hydrates as its own React root, so `useId` would not match the
 * id the server produced inside the whole page: islands use fixed ids.
 */
import type { ReactElement } from "react";
import type { RenderRequest } from "../types";
import { MobileMenu } from "./MobileMenu";
import { PhraseLive } from "./PhraseLive";
import { WordsLive } from "./WordsLive";

export interface IslandPages {
  menu: RenderRequest;
  words: Extract<RenderRequest, { route: "words" }>;
  phrase: Extract<RenderRequest, { route: "phrase" }>;
}

export type IslandName = keyof IslandPages;

export const islands: { [Name in IslandName]: (page: IslandPages[Name]) => ReactElement } = {
  menu: (page) => <MobileMenu site={page.props.site} onHome={page.route === "home"} />,
  words: (page) => <WordsLive {...page.props} />,
  phrase: (page) => <PhraseLive {...page.props} />,
};

export function isIslandName(value: unknown): value is IslandName {
  return typeof value === "string" && Object.hasOwn(islands, value);
}

/** Renders island `name` for any page, failing loudly if the page cannot feed it. */
export function renderIsland(name: IslandName, page: RenderRequest): ReactElement {
  switch (name) {
    case "menu":
      return islands.menu(page);
    case "words":
      if (page.route !== "words") throw new Error(`island "words" needs the words page, got "${page.route}"`);
      return islands.words(page);
    case "phrase":
      if (page.route !== "phrase") throw new Error(`island "phrase" needs a phrase's page, got "${page.route}"`);
      return islands.phrase(page);
  }
}
