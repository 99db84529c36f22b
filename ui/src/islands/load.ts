/**
 * The islands as the browser fetches them: the list's and a phrase's each in a chunk of
 * their own (the virtualiser, the live feed, the checker), fetched only by the pages that
 * have them, so the landing page carries none of their code. The host names a page's
 * chunks for preloading (`islands` in the manifest), so none waits for the entry to ask.
 */
import { MobileMenu } from "./MobileMenu";
import type { IslandName, IslandParts } from "./render";

export async function loadIsland<Name extends IslandName>(name: Name): Promise<IslandParts[Name]> {
  const parts: { [Key in IslandName]: () => Promise<IslandParts[Key]> } = {
    menu: async () => MobileMenu,
    words: async () => (await import("./WordsLive")).WordsLive,
    phrase: async () => (await import("./PhraseLive")).PhraseLive,
  };
  return parts[name]();
}
