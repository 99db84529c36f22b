import { useCallback, useEffect, useRef, useState, type FocusEvent } from "react";
import { NAV_ITEMS, navHref, productCallToAction, productPath } from "../data/site";
import type { SiteProps } from "../types";
import { ButtonLink } from "./ButtonLink";
import { Icon } from "./Icon";
import { Logo } from "./Logo";

export interface Props {
  site: SiteProps;
  onHome: boolean;
}

const PANEL_ID = "site-menu";

/** The navigation below the md breakpoint: a button and the panel it opens. */
export function MobileMenu({ site, onHome }: Props) {
  const [open, setOpen] = useState(false);
  const openButton = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  // Focus goes back to the button only when the menu was closed from inside it;
  // a click or Tab elsewhere has already put focus where the user wants it.
  const restoreFocus = useRef(false);

  const close = useCallback((returnFocus: boolean) => {
    restoreFocus.current = returnFocus;
    setOpen(false);
  }, []);

  useEffect(() => {
    if (open) {
      closeButton.current?.focus();
    } else if (restoreFocus.current) {
      restoreFocus.current = false;
      openButton.current?.focus();
    }
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") close(true);
    };
    const onPointerDown = (event: PointerEvent) => {
      if (event.target instanceof Node && !panel.current?.contains(event.target)) close(false);
    };
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, [open, close]);

  const onBlur = (event: FocusEvent<HTMLDivElement>) => {
    const next = event.relatedTarget;
    if (next instanceof Node && !event.currentTarget.contains(next)) close(false);
  };

  return (
    <div className="md:hidden">
      <button
        ref={openButton}
        type="button"
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => setOpen(true)}
        className="inline-flex size-10 items-center justify-center rounded-full text-white hover:bg-white/10 hover:text-accent"
      >
        <Icon name="menu" />
        <span className="sr-only">Open menu</span>
      </button>
      <div
        ref={panel}
        id={PANEL_ID}
        data-open={open ? "" : undefined}
        tabIndex={-1}
        onBlur={onBlur}
        className="menu-panel fixed inset-x-0 top-0 z-50 border-b border-accent/40 bg-black px-4 pb-6 pt-4 shadow-2xl shadow-accent/10"
      >
        <div className="flex items-center justify-between">
          <Logo />
          <button
            ref={closeButton}
            type="button"
            onClick={() => close(true)}
            className="inline-flex size-10 items-center justify-center rounded-full text-white hover:bg-white/10 hover:text-accent"
          >
            <Icon name="close" />
            <span className="sr-only">Close menu</span>
          </button>
        </div>
        <nav aria-label="Menu" className="mt-6">
          <ul className="grid grid-cols-2 gap-2">
            {NAV_ITEMS.map((item) => (
              <li key={item.anchor}>
                <a
                  href={navHref(item, onHome)}
                  onClick={() => close(false)}
                  className="block rounded-xl border-2 border-white/10 px-4 py-3 font-display text-base font-bold uppercase hover:border-accent hover:text-accent"
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ButtonLink href={productPath(site)} className="mt-6 w-full">
          {productCallToAction(site)}
        </ButtonLink>
      </div>
    </div>
  );
}
