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
 *
 * Places are taken within the list, so what moves the whole list (the checker's message
 * above it, the page's scrolling) leaves them as they are; they are taken again as the
 * phrases, the rows rendered (`rows`, which also names the columns) or the width change,
 * not at every render: the grid renders at each frame of a scroll, and 300 cards measured
 * each time cost a millisecond a frame.
 */
export function useGlide(list: RefObject<HTMLElement | null>, phrases: readonly Phrase[], rows: string): void {
  const [places] = useState(() => new WeakMap<Element, { left: number; top: number }>());
  const shown = useRef(phrases);
  useLayoutEffect(() => {
    const element = list.current;
    if (element === null) return;
    const changed = shown.current !== phrases;
    shown.current = phrases;
    const origin = element.getBoundingClientRect();
    const glide = changed && origin.top >= 0 && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    for (const item of element.children) {
      const [box, now] = placeIn(item, origin);
      const was = places.get(item);
      places.set(item, now);
      if (!glide || was === undefined || box.bottom < 0 || box.top > window.innerHeight) continue;
      const [x, y] = [was.left - now.left, was.top - now.top];
      if (x !== 0 || y !== 0) {
        item.animate([{ transform: `translate(${x}px, ${y}px)` }, { transform: "none" }], { duration: GLIDE_MS, easing: "ease-out" });
      }
    }
  }, [list, phrases, rows, places]);
  // A new width moves the cards without a render.
  useEffect(() => {
    const measure = () => {
      const element = list.current;
      if (element === null) return;
      const origin = element.getBoundingClientRect();
      for (const item of element.children) places.set(item, placeIn(item, origin)[1]);
    };
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, [list, places]);
}

/** `item`'s box, and its place within the list whose box is `origin`. */
function placeIn(item: Element, origin: DOMRect): [DOMRect, { left: number; top: number }] {
  const box = item.getBoundingClientRect();
  return [box, { left: box.left - origin.left, top: box.top - origin.top }];
}
