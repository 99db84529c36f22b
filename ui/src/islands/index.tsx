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

/** Every island, by the name the markup carries (`data-island`). */
const ISLAND_NAMES = ["menu", "words", "phrase"] as const;

export type IslandName = (typeof ISLAND_NAMES)[number];

export function isIslandName(value: unknown): value is IslandName {
  return typeof value === "string" && (ISLAND_NAMES as readonly string[]).includes(value);
}

/** Renders island `name` for any page, failing loudly if the page cannot feed it. */
export function renderIsland(name: IslandName, page: RenderRequest): ReactElement {
  switch (name) {
    case "menu":
      return <MobileMenu site={page.props.site} onHome={page.route === "home"} />;
    case "words":
      if (page.route !== "words") throw new Error(`island "words" needs the words page, got "${page.route}"`);
      return <WordsLive {...page.props} />;
    case "phrase":
      if (page.route !== "phrase") throw new Error(`island "phrase" needs a phrase's page, got "${page.route}"`);
      return <PhraseLive {...page.props} />;
  }
}
