import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { insertionIndex, type PagedList } from "./live";
import type { Phrase } from "./types";

export interface HeldArrivals {
  /** The list as the grid shows it: without the phrases held above it. */
  shown: PagedList;
  /** How many phrases were minted on top since the visitor went down the list. */
  above: number;
  /** How many of them wait above the grid (in several columns). */
  held: number;
  /** Lets them in, and starts the count again (the visitor asked to see them). */
  release: () => void;
}

/** The newest phrase shown as the visitor went down the list, and every phrase loaded then. */
interface Away {
  query: string;
  head: Phrase;
  seen: ReadonlySet<string>;
}

/**
 * Phrases minted while the visitor reads further down a grid of several columns wait
 * above it rather than go in: each moved every card on screen a place along its row
 * (a layout shift of 0.58 at 1280 px). In one column the reader's place is kept as they
 * go in, and nothing on screen moves; they are counted all the same, for the note that
 * says so. Scrolling back to the top of the list, or `release`, lets them in. A phrase
 * already loaded whose time was written by hand is not new: it moves as it did.
 */
export function useHeldArrivals(list: PagedList, top: RefObject<HTMLElement | null>, live: boolean, columns: number): HeldArrivals {
  const [away, setAway] = useState<Away | null>(null);
  const current = useRef(list);
  useEffect(() => {
    current.current = list;
  });
  const query = list.query;
  useEffect(() => {
    if (!live) return;
    const look = () => {
      const element = top.current;
      const gone = element !== null && element.getBoundingClientRect().top < 0;
      // Another find is another list: what was held of the last one is not this one's.
      setAway((was) => (gone ? (was?.query === current.current.query ? was : leaving(current.current)) : null));
    };
    look();
    window.addEventListener("scroll", look, { passive: true });
    return () => window.removeEventListener("scroll", look);
  }, [live, top, query]);

  const release = useCallback(() => setAway(null), []);
  // The same list for the same phrases: the grid follows its reader's card by it.
  const { shown, above, held } = useMemo(() => holding(list, away, columns), [list, away, columns]);
  return { shown, above, held, release };
}

function holding(list: PagedList, away: Away | null, columns: number): Omit<HeldArrivals, "release"> {
  if (away === null || away.query !== list.query || !list.fromTop) return { shown: list, above: 0, held: 0 };
  const newer = insertionIndex(list.phrases, away.head);
  const moved = list.phrases.slice(0, newer).filter((phrase) => away.seen.has(phrase.id));
  const above = newer - moved.length;
  if (above === 0 || columns === 1) return { shown: list, above, held: 0 };
  const phrases = [...moved, ...list.phrases.slice(newer)];
  return { shown: { ...list, phrases }, above, held: above };
}

function leaving(list: PagedList): Away | null {
  const head = list.phrases[0];
  if (head === undefined || !list.fromTop) return null;
  return { query: list.query, head, seen: new Set(list.phrases.map((phrase) => phrase.id)) };
}
