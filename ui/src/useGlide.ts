import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import type { Phrase } from "./types";

/** How long a card takes to glide to its new place. */
const GLIDE_MS = 300;

/**
 * Cards that a change of the list moves on screen glide from where they were to where
 * they are (first, last, invert, play), rather than jump a place along their row as a
 * phrase comes in above them. Only while the list's top is in view: further down, a
 * phrase minted above is held (`useHeldArrivals`) or the reader's place is kept, and
 * nothing on screen moves. With reduced motion they move at once.
 */
export function useGlide(list: RefObject<HTMLElement | null>, phrases: readonly Phrase[]): void {
  // Where each card was, in the page's coordinates, after the last render or resize.
  const [places] = useState(() => new WeakMap<Element, { left: number; top: number }>());
  const shown = useRef(phrases);
  // After every render: what moved the cards since (the checker's message above the
  // list, rows the virtualizer added) is not a change to glide from.
  useLayoutEffect(() => {
    const element = list.current;
    if (element === null) return;
    const changed = shown.current !== phrases;
    shown.current = phrases;
    const glide = changed && element.getBoundingClientRect().top >= 0 && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    for (const item of element.children) {
      const box = item.getBoundingClientRect();
      const now = { left: box.left + window.scrollX, top: box.top + window.scrollY };
      const was = places.get(item);
      places.set(item, now);
      if (!glide || was === undefined || box.bottom < 0 || box.top > window.innerHeight) continue;
      const [x, y] = [was.left - now.left, was.top - now.top];
      if (x !== 0 || y !== 0) {
        item.animate([{ transform: `translate(${x}px, ${y}px)` }, { transform: "none" }], { duration: GLIDE_MS, easing: "ease-out" });
      }
    }
  });
  // A new width moves the cards without a render.
  useEffect(() => {
    const measure = () => {
      for (const item of list.current?.children ?? []) {
        const box = item.getBoundingClientRect();
        places.set(item, { left: box.left + window.scrollX, top: box.top + window.scrollY });
      }
    };
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, [list, places]);
}
