import { useEffect, useState } from "react";
import { insertionIndex, type PagedList } from "./live";
import type { Phrase } from "./types";

/** How long a phrase that came in live stays marked as new. */
export const FRESH_MS = 4000;

/** A card's key in the grid, and its mark: a phrase whose time changed is another card. */
export const cardKey = (phrase: Phrase) => `${phrase.id} ${phrase.created}`;

/**
 * The phrases (`cardKey`) that came in at the top of the list lately, once the page is
 * live, each until `FRESH_MS` after it came: each moves every card after it a place,
 * and without a mark the visitor saw the grid jump and not what came. Another find, or
 * the pages below, are not arrivals.
 */
export function useFreshArrivals(list: PagedList, live: boolean): ReadonlySet<string> {
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
  const first = list.phrases[0];
  const [before, setBefore] = useState({ query: list.query, first });
  if (before.query !== list.query || before.first !== first) {
    setBefore({ query: list.query, first });
    const was = before.first;
    if (live && list.fromTop && before.query === list.query && was !== undefined) {
      const arrived = list.phrases.slice(0, insertionIndex(list.phrases, was)).map(cardKey);
      if (arrived.length > 0) setFresh((marked) => new Set([...marked, ...arrived]));
    }
  }
  // Each arrival's marks go in their own time: under a steady stream of mints, not only
  // once it pauses.
  const [timers] = useState(() => new Map<string, ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const unscheduled = [...fresh].filter((key) => !timers.has(key));
    if (unscheduled.length === 0) return;
    const timer = setTimeout(() => {
      for (const key of unscheduled) timers.delete(key);
      setFresh((marked) => new Set([...marked].filter((key) => !unscheduled.includes(key))));
    }, FRESH_MS);
    for (const key of unscheduled) timers.set(key, timer);
  }, [fresh, timers]);
  useEffect(
    () => () => {
      for (const timer of new Set(timers.values())) clearTimeout(timer);
      timers.clear();
    },
    [timers],
  );
  return fresh;
}
