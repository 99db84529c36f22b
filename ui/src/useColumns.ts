import { useSyncExternalStore } from "react";

// Tailwind's sm, md and lg breakpoints, where PhraseGrid goes to 2, 3 and 4 columns.
const BREAKPOINTS: readonly (readonly [string, number])[] = [
  ["(min-width: 64rem)", 4],
  ["(min-width: 48rem)", 3],
  ["(min-width: 40rem)", 2],
];

/** How many columns the phrase grid has at the window's width. */
export function useColumns(): number {
  return useSyncExternalStore(subscribe, columnsNow, () => 1);
}

function columnsNow(): number {
  for (const [query, columns] of BREAKPOINTS) if (window.matchMedia(query).matches) return columns;
  return 1;
}

function subscribe(onChange: () => void): () => void {
  const lists = BREAKPOINTS.map(([query]) => window.matchMedia(query));
  for (const list of lists) list.addEventListener("change", onChange);
  return () => {
    for (const list of lists) list.removeEventListener("change", onChange);
  };
}
