import { defaultRangeExtractor, useWindowVirtualizer, type Range } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { PagedList } from "../live";
import { keepPlace, keptAt, type Place } from "../place";
import type { SiteProps } from "../types";
import { useColumns } from "../useColumns";
import { useGlide } from "../useGlide";
import { PhraseGrid } from "./PhraseGrid";

export interface Props {
  list: PagedList;
  site: Pick<SiteProps, "productName" | "wordsPath">;
  /** How many phrases the whole list has (the count minted, for the newest-first list). */
  total: number;
  /** The phrases (`cardKey`) to mark as new. */
  fresh?: ReadonlySet<string>;
  /** How many newer phrases the whole list has before `list` (held above it). */
  before?: number;
  busy: boolean;
  /** Called when the rendered rows come near the last loaded one. */
  onNearEnd: () => void;
  /** Index of a phrase to bring into view and focus once it is loaded ("Load more"). */
  focusIndex: number | null;
  onFocused: () => void;
  /** How many phrases the host's page held: past them the grid restores its place itself. */
  served: number;
  /** A place kept from before, its phrases loaded: scrolled to once, then `onPlaced`. */
  place: Place | null;
  onPlaced: () => void;
}

/** A card's height at one line of phrase; rows are measured as they render. */
const ROW_ESTIMATE_PX = 110;
/** The grid's gap-4. */
const GAP_PX = 16;
const OVERSCAN_ROWS = 4;
/**
 * Up to this many phrases every card stays in the document (find in page, a
 * full-page capture and a screen reader's list all see the whole list); past
 * it only the rows near the viewport do.
 */
export const ALL_CARDS_UP_TO = 300;
/**
 * Rows from the end of what is loaded (beyond the overscan) at which the next page is
 * asked for: enough to scroll on smoothly, few enough that a visitor who reads only
 * the top of the page costs the host no second request.
 */
const AHEAD_ROWS = 3;
/**
 * Whether the browser keeps the reader's place itself when content above changes (CSS
 * scroll anchoring); Safari does not, so there the grid does it with every card in the
 * document too.
 */
const BROWSER_ANCHORS = typeof CSS !== "undefined" && CSS.supports("overflow-anchor", "auto");

/**
 * The grid once hydrated: the same list and cards, with only the rows near
 * the viewport in the document (the others are padding of their measured or
 * estimated height), so it stays small however far the visitor scrolls.
 */
export function VirtualPhraseGrid({ list, site, total, fresh, before = 0, busy, onNearEnd, focusIndex, onFocused, served, place, onPlaced }: Props) {
  const columns = useColumns();
  const listElement = useRef<HTMLUListElement>(null);
  // Null until measured: the rows in view are not known before, nor whether the end is near.
  const [measuredMargin, setScrollMargin] = useState<number | null>(null);
  const scrollMargin = measuredMargin ?? 0;
  const count = list.phrases.length;
  const rowCount = Math.ceil(count / columns);

  const everyRow = count <= ALL_CARDS_UP_TO;
  const virtualizer = useWindowVirtualizer({
    count: rowCount,
    rangeExtractor: everyRow ? allRows : defaultRangeExtractor,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: OVERSCAN_ROWS,
    gap: GAP_PX,
    scrollMargin,
    initialRect: { width: window.innerWidth, height: window.innerHeight },
  });

  // Every card in the document, the browser's scroll anchoring keeps the visitor's place
  // when a card above changes; the virtualizer's own correction, made as a row's measured
  // height differs from what it had for that index, would move them a second time. Set
  // as the grid renders, not in an effect: the cards' refs measure them before any effect
  // of the grid runs, and at hydration (a reload, Back) the page is already scrolled to
  // where the visitor was, so each row above measured shorter than its estimate would
  // move them up by the difference.
  // eslint-disable-next-line react-hooks/immutability -- TanStack Virtual takes this as a property of its instance only, not as an option; the same value for the same render
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = everyRow ? neverAdjust : undefined;

  // Where the list starts on the page moves with what is above it (the checker's message).
  // eslint-disable-next-line react-hooks/exhaustive-deps -- after every render on purpose: what moves the list is outside this component; the comparison ends the chain
  useLayoutEffect(() => {
    const element = listElement.current;
    if (element === null) return;
    const top = Math.round(element.getBoundingClientRect().top + window.scrollY);
    if (top !== measuredMargin) setScrollMargin(top);
  });

  useEffect(() => virtualizer.measure(), [columns, virtualizer]);

  // Past ALL_CARDS_UP_TO the rows above the viewport are padding, which the browser's
  // scroll anchoring does not follow: a phrase minted on top would push the one being
  // read down a row. The grid notes the phrase at the top of the viewport as the visitor
  // scrolls and, when the list changes, scrolls by as far as that phrase's row moved.
  const reading = useRef<{ id: string; created: number; row: number } | null>(null);
  const phrases = list.phrases;
  const readingNow = useRef(() => {});
  // After every render: the scroll listener reads this render's rows.
  useLayoutEffect(() => {
    readingNow.current = () => {
      const rows = virtualizer.measurementsCache;
      const y = window.scrollY;
      // Noted with every card in the document too: the change that takes the list past
      // ALL_CARDS_UP_TO is the first the browser's anchoring no longer follows.
      if (measuredMargin === null || y <= measuredMargin || rows.length === 0) {
        reading.current = null;
        return;
      }
      let low = 0;
      let high = rows.length - 1;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((rows[middle]?.end ?? 0) <= y) low = middle + 1;
        else high = middle;
      }
      const phrase = phrases[low * columns];
      reading.current = phrase === undefined ? null : { id: phrase.id, created: phrase.created, row: low };
    };
  });
  // The grid's own scrolling (below) keeps the phrase followed: noted afresh, it would be
  // whichever began the row then, and the next change would follow another.
  const adjusted = useRef(false);
  useEffect(() => {
    const onScroll = () => {
      if (adjusted.current) adjusted.current = false;
      else readingNow.current();
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  useLayoutEffect(() => {
    const was = reading.current;
    if ((!everyRow || !BROWSER_ANCHORS) && was !== null) {
      // One whose time was written by hand has moved elsewhere: followed there, it would
      // carry the reader off with it, so it counts as gone and its row is kept.
      const index = phrases.findIndex((phrase) => phrase.id === was.id && phrase.created === was.created);
      const row = index < 0 ? was.row : Math.floor(index / columns);
      const rows = virtualizer.measurementsCache;
      const [from, to] = [rows[was.row]?.start, rows[row]?.start];
      if (row !== was.row && from !== undefined && to !== undefined && to !== from) {
        adjusted.current = true;
        window.scrollBy(0, to - from);
      }
      // The same phrase stays the one followed: in several columns a phrase minted on top
      // moves it along its row, and only every few a row down, which the next change
      // must still see. Noted afresh as the visitor scrolls, or once it is gone.
      if (index >= 0) {
        reading.current = { ...was, row };
        return;
      }
    }
    readingNow.current();
  }, [phrases, columns, everyRow, virtualizer]);

  const rows = virtualizer.getVirtualItems();
  const firstRow = rows[0]?.index ?? 0;
  const start = firstRow * columns;
  const lastRow = rows[rows.length - 1]?.index ?? -1;
  // What is near the viewport, whatever is rendered: the next page is asked for by that.
  const nearLast = everyRow ? (virtualizer.range?.endIndex ?? -1) + OVERSCAN_ROWS : lastRow;
  useGlide(listElement, list.phrases, `${firstRow} ${lastRow} ${columns}`);

  // Where the focus is in the list, for two things. A keyboard moving through the cards
  // loads nothing by itself: each Tab near the end would, and the Load more button and all
  // after the list would never be reached. And a card removed live while it has the focus
  // leaves it on the page's body, and a screen reader's place with it: the focus goes to
  // the card now in its place, so the card last focused in the list is noted.
  const [keyboardInside, setKeyboardInside] = useState(false);
  const focused = useRef<{ id: string; created: number; index: number } | null>(null);
  const shown = useRef({ list, start, before });
  // After every render: the listeners below read this render's cards.
  useLayoutEffect(() => {
    shown.current = { list, start, before };
  });
  useEffect(() => {
    const inside = (target: EventTarget | null): target is Element =>
      target instanceof Element && listElement.current?.contains(target) === true;
    const card = (target: EventTarget | null) => {
      const list = listElement.current;
      const item = target instanceof Element ? target.closest("li") : null;
      if (list === null || item === null || item.parentElement !== list) return null;
      const index = shown.current.start + Array.prototype.indexOf.call(list.children, item);
      const phrase = shown.current.list.phrases[index];
      return phrase === undefined ? null : { id: phrase.id, created: phrase.created, index };
    };
    const entered = (event: FocusEvent) => {
      setKeyboardInside(inside(event.target) && event.target.matches(":focus-visible"));
      focused.current = card(event.target);
    };
    // Only when the focus goes nowhere: on its way from one card to the next the page
    // renders between the two events, and on its way out to the element after the list
    // (Load more) the focus-in says so once it is there, where the grid can see it. The
    // card focused is forgotten only after the render under way, since a card removed by
    // it sends a focus-out too.
    const left = (event: FocusEvent) => {
      if (event.relatedTarget !== null) return;
      setKeyboardInside(false);
      const was = focused.current;
      if (was !== null) {
        setTimeout(() => {
          if (focused.current === was) focused.current = null;
        });
      }
    };
    document.addEventListener("focusin", entered);
    document.addEventListener("focusout", left);
    return () => {
      document.removeEventListener("focusin", entered);
      document.removeEventListener("focusout", left);
    };
  }, []);
  useLayoutEffect(() => {
    const was = focused.current;
    if (was === null) return;
    const now = phrases.findIndex((phrase) => phrase.id === was.id);
    if (now >= 0 && phrases[now]?.created === was.created) return;
    focused.current = null;
    const lost = document.activeElement === null || document.activeElement === document.body;
    // Moved (its time written by hand, its card made anew): the focus goes with it where
    // it is rendered; removed, or moved out of sight, to the card now in its place.
    const cardAt = (index: number) => listElement.current?.children[index - shown.current.start]?.querySelector("a");
    const card = (now >= 0 ? cardAt(now) : undefined) ?? cardAt(Math.min(was.index, phrases.length - 1));
    if (lost && card instanceof HTMLElement) card.focus();
  }, [phrases]);

  // The visitor's place, kept in the history entry as they follow a link or leave the
  // page (a reload too): the card at the top of the viewport, and as many phrases as
  // reach the bottom of it.
  useEffect(() => {
    const keep = (event: Event) => {
      // A page kept whole in the back-forward cache keeps its place itself, and a
      // history write as it goes in has Chromium drop it from there instead.
      if (event instanceof PageTransitionEvent && event.persisted) return;
      const { list, start, before } = shown.current;
      const items = listElement.current?.children;
      if (items === undefined || items.length === 0 || !list.fromTop) return;
      const edges = (index: number) => items[index]?.getBoundingClientRect() ?? { top: 0, bottom: 0 };
      let top = 0;
      while (top + 1 < items.length && edges(top).bottom <= 0) top++;
      let last = top;
      while (last + 1 < items.length && edges(last + 1).top < window.innerHeight) last++;
      const phrase = list.phrases[start + top];
      if (phrase === undefined) return;
      // Counted in the whole list, the phrases held above it included: a reload shows them.
      const at = before + start;
      keepPlace({ query: list.query, loaded: at + last + 1, id: phrase.id, created: phrase.created, index: at + top, top: Math.round(edges(top).top) }, served);
    };
    document.addEventListener("click", keep, true);
    window.addEventListener("pagehide", keep);
    return () => {
      document.removeEventListener("click", keep, true);
      window.removeEventListener("pagehide", keep);
    };
  }, [served]);

  // Back to the place kept, once the list is measured where it starts on the page.
  useLayoutEffect(() => {
    if (place === null || measuredMargin === null || count === 0) return;
    const index = phrases.findIndex((phrase) => keptAt(place, phrase));
    const row = Math.floor(Math.min(index < 0 ? place.index : index, count - 1) / columns);
    const rowStart = virtualizer.measurementsCache[row]?.start;
    if (rowStart !== undefined) window.scrollTo(0, rowStart - place.top);
    onPlaced();
    // The rows brought into view are measured as they render, and may move the card a
    // little from where the estimates put it: it is put back for a few frames (not
    // called off as `place` is cleared, which is at once).
    if (index < 0) return;
    let frames = 3;
    const settle = () => {
      const { list, start } = shown.current;
      const at = list.phrases.findIndex((phrase) => keptAt(place, phrase));
      const item = listElement.current?.children[at - start];
      if (at < start || item === undefined) return;
      const off = Math.round(item.getBoundingClientRect().top) - place.top;
      if (off !== 0) window.scrollBy(0, off);
      if (--frames > 0) requestAnimationFrame(settle);
    };
    requestAnimationFrame(settle);
  }, [place, measuredMargin, phrases, count, columns, virtualizer, onPlaced]);

  const measured = measuredMargin !== null;
  useEffect(() => {
    if (measured && !keyboardInside && list.next !== null && nearLast >= rowCount - AHEAD_ROWS) onNearEnd();
  }, [measured, keyboardInside, nearLast, rowCount, list.next, onNearEnd]);

  useEffect(() => {
    if (focusIndex === null || focusIndex >= count) return;
    const row = Math.floor(focusIndex / columns);
    if (row < firstRow || row > lastRow) {
      virtualizer.scrollToIndex(row, { align: "start" });
      return;
    }
    const item = listElement.current?.children[focusIndex - firstRow * columns];
    if (item instanceof HTMLElement) item.focus();
    onFocused();
  }, [focusIndex, count, columns, firstRow, lastRow, virtualizer, onFocused]);

  const end = Math.min((lastRow + 1) * columns, count);
  const first = rows[0];
  const last = rows[rows.length - 1];
  const paddingTop = first === undefined ? 0 : first.start - scrollMargin;
  const paddingBottom = last === undefined ? 0 : virtualizer.getTotalSize() - (last.end - scrollMargin);

  return (
    <PhraseGrid
      phrases={list.phrases.slice(start, end)}
      site={site}
      query={list.query}
      first={list.fromTop ? before + start : undefined}
      fresh={fresh}
      setSize={total}
      // The grid keeps the visitor's place itself (above): the browser's anchoring stays out.
      style={{ paddingTop, paddingBottom, overflowAnchor: everyRow ? undefined : "none" }}
      rows={{ columns, first: firstRow, measure: virtualizer.measureElement }}
      busy={busy}
      listRef={listElement}
    />
  );
}

function neverAdjust(): boolean {
  return false;
}

function allRows(range: Range): number[] {
  return Array.from({ length: range.count }, (_, index) => index);
}
