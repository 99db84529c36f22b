/**
 * The islands as the browser fetches them: the list's and a phrase's each in a chunk of
 * their own (the virtualiser, the live feed, the checker), fetched only by the pages that
 * have them, so the landing page carries none of their code. The host names a page's
 * chunks for preloading (`islands` in the manifest), so none waits for the entry to ask.
 */
import { MobileMenu } from "./MobileMenu";
import type { IslandName, IslandParts } from "./render";

/** The component of island `name`, fetched if it has a chunk of its own. */
export async function loadIsland(name: IslandName): Promise<Partial<IslandParts>> {
  switch (name) {
    case "menu":
      return { menu: MobileMenu };
    case "words":
      return { words: (await import("./WordsLive")).WordsLive };
    case "phrase":
      return { phrase: (await import("./PhraseLive")).PhraseLive };
  }
}
