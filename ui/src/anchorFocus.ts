/**
 * In-page links scroll to their section and move focus to it, so keyboard and
 * screen-reader users land where sighted users see the page go. A section that
 * is not in the page yet is waited for, up to ten seconds. The same happens on
 * arriving with a fragment (`/#faq` from another page) and on going back or
 * forward between fragments.
 */

/** How long a link keeps looking for a section that is not there yet. */
export const SECTION_WAIT_MS = 10_000;

interface Here {
  href: string;
  origin: string;
  pathname: string;
  search: string;
}

/** The id `href` points to on the page at `here`, or null when it leads elsewhere. */
export function sameDocumentTarget(href: string, here: Here): string | null {
  let url: URL;
  try {
    url = new URL(href, here.href);
  } catch {
    return null;
  }
  if (url.origin !== here.origin || url.pathname !== here.pathname || url.search !== here.search) return null;
  return idFromHash(url.hash);
}

/** The element id a fragment names: `#need-you` → `need-you`; nothing for `#` or ``. */
export function idFromHash(hash: string): string | null {
  if (hash.length < 2) return null;
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return hash.slice(1);
  }
}

/** Starts handling in-page links in `win`; returns what stops it. */
export function installAnchorFocus(win: Window): () => void {
  const doc = win.document;
  let stopWaiting = () => {};

  const goTo = (id: string, smooth: boolean) => {
    stopWaiting();
    stopWaiting = whenPresent(doc, id, (target) => reveal(target, smooth && !prefersReducedMotion(win)));
  };

  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!(link instanceof HTMLAnchorElement) || (link.target !== "" && link.target !== "_self")) return;
    const id = sameDocumentTarget(link.href, win.location);
    if (id === null) return;
    event.preventDefault();
    if (win.location.hash !== link.hash) win.history.pushState(null, "", link.hash);
    goTo(id, true);
  };

  const onHashChange = () => {
    const id = idFromHash(win.location.hash);
    if (id !== null) goTo(id, false);
  };

  doc.addEventListener("click", onClick);
  win.addEventListener("hashchange", onHashChange);
  onHashChange();
  return () => {
    stopWaiting();
    doc.removeEventListener("click", onClick);
    win.removeEventListener("hashchange", onHashChange);
  };
}

/**
 * Calls `found` with the element `id` now, or as soon as it appears within
 * `SECTION_WAIT_MS`. Returns what stops the wait.
 */
function whenPresent(doc: Document, id: string, found: (target: HTMLElement) => void): () => void {
  const present = doc.getElementById(id);
  if (present) {
    found(present);
    return () => {};
  }
  const observer = new MutationObserver(() => {
    const target = doc.getElementById(id);
    if (!target) return;
    stop();
    found(target);
  });
  const timer = setTimeout(() => stop(), SECTION_WAIT_MS);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(doc.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["id"] });
  return stop;
}

function reveal(target: HTMLElement, smooth: boolean): void {
  // Sections render tabIndex={-1}; anything else linked to still has to take focus.
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
  target.scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "start" });
}

function prefersReducedMotion(win: Window): boolean {
  return win.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
