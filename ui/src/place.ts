/**
 * Where the visitor was in the list, kept in the page's history entry as they leave it.
 * Back (when the browser loads the page afresh rather than from its back-forward cache)
 * and a reload bring the host's first page only, and the browser's own scroll restoring
 * stops at its end: the page loads as many phrases again and scrolls to the same card.
 */
import { isRecord } from "./guards";

export interface Place {
  /** The list's find text ("" for the newest-first list). */
  query: string;
  /** How many phrases were loaded. */
  loaded: number;
  /** The card at the top of the viewport: its phrase, its index then and its top edge. */
  id: string;
  index: number;
  top: number;
  /** The phrase's time then: moved since (its time written by hand), its index is the place. */
  created?: number | undefined;
}

/**
 * The most phrases loaded again to restore a place: 25 requests of the host's largest
 * page, well within one address's rate limit. A visitor further down (some 1,000 screens
 * of a phone) is left where the browser's own restoring puts them.
 */
export const MOST_RESTORED = 5000;

/** The history state's key, beside whatever else the entry holds. */
const KEY = "wordsPlace";

/** Whether `phrase` is the one `place` was kept at, where it was then. */
export function keptAt(place: Place, phrase: { id: string; created: number }): boolean {
  return phrase.id === place.id && (place.created === undefined || phrase.created === place.created);
}

/** The place kept in `state`, if it holds one that makes sense. */
export function readPlace(state: unknown): Place | null {
  const place = isRecord(state) ? state[KEY] : undefined;
  if (!isRecord(place)) return null;
  const { query, loaded, id, index, top, created } = place;
  if (typeof query !== "string" || typeof id !== "string") return null;
  if (!isCount(loaded) || !isCount(index) || typeof top !== "number" || !Number.isFinite(top)) return null;
  // Kept by a page before times were kept with it, or not a time: the phrase is found by id alone.
  return { query, loaded, id, index, top, created: isCount(created) ? created : undefined };
}

/** `state` with `place` kept in it (or taken out), the rest as it was. */
export function withPlace(state: unknown, place: Place | null): Record<string, unknown> {
  const rest = isRecord(state) ? { ...state } : {};
  if (place === null) delete rest[KEY];
  else rest[KEY] = place;
  return rest;
}

/**
 * Keeps `place` in the current history entry. Past the first page the page restores it
 * itself, so the browser is told not to scroll first, to the end of the first page.
 */
export function keepPlace(place: Place | null, served: number): void {
  try {
    window.history.replaceState(withPlace(window.history.state, place), "");
  } catch {
    // Safari throws past some 100 calls in a few seconds (clicks in a hurry, on top of
    // typing in the checker): the place kept before stands.
    return;
  }
  window.history.scrollRestoration = restorable(place, served) ? "manual" : "auto";
}

/** Whether the page restores `place` itself, its host's page holding `served` phrases. */
export function restorable(place: Place | null, served: number): place is Place {
  return place !== null && place.loaded > served && place.loaded <= MOST_RESTORED;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
