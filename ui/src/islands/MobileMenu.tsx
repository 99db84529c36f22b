import { useRef, useState, type FocusEvent, type ToggleEvent } from "react";
import { NAV_ITEMS, navHref, productCallToAction } from "../data/site";
import type { SiteProps } from "../types";
import { useHydrated } from "../useHydrated";
import { ButtonLink } from "../components/ButtonLink";
import { Icon } from "../components/Icon";
import { Logo } from "../components/Logo";

export interface Props {
  site: SiteProps;
  onHome: boolean;
}

const PANEL_ID = "site-menu";

/**
 * The navigation below the md breakpoint: a button and the panel it opens.
 * The panel is a popover, so the browser opens and closes it without
 * JavaScript: its buttons, Escape and a click outside work before the bundle
 * runs (or when it never does), the close button takes focus on opening and
 * focus returns to "Open menu" when the panel is closed from inside. Once
 * hydrated, the island sets `aria-expanded` and also closes the panel when
 * focus leaves it or a link in it is followed.
 */
export function MobileMenu({ site, onHome }: Props) {
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  // The browser tells assistive technology whether a popover is open; HTML
  // forbids saying it again in the served markup, so only the island does.
  const hydrated = useHydrated();

  const close = () => {
    if (panel.current?.matches(":popover-open")) panel.current.hidePopover();
  };
  const onBeforeToggle = (event: ToggleEvent<HTMLDivElement>) => setOpen(event.newState === "open");
  const onBlur = (event: FocusEvent<HTMLDivElement>) => {
    const next = event.relatedTarget;
    if (next instanceof Node && !event.currentTarget.contains(next)) close();
  };

  return (
    <div className="md:hidden">
      <button
        type="button"
        popoverTarget={PANEL_ID}
        aria-expanded={hydrated ? open : undefined}
        aria-controls={PANEL_ID}
        className="inline-flex size-11 items-center justify-center rounded-full text-white hover:bg-white/10 hover:text-accent"
      >
        <Icon name="menu" />
        <span className="sr-only">Open menu</span>
      </button>
      <div
        ref={panel}
        id={PANEL_ID}
        popover="auto"
        tabIndex={-1}
        onBeforeToggle={onBeforeToggle}
        onBlur={onBlur}
        className="menu-panel fixed inset-x-0 top-0 bottom-auto m-0 h-auto w-auto max-w-none overflow-visible border-0 border-b border-accent/40 bg-black px-4 pb-6 pt-4 text-white shadow-2xl shadow-accent/10"
      >
        <div className="flex items-center justify-between">
          <Logo />
          <button
            type="button"
            popoverTarget={PANEL_ID}
            popoverTargetAction="hide"
            autoFocus
            className="inline-flex size-11 items-center justify-center rounded-full text-white hover:bg-white/10 hover:text-accent"
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
                  onClick={close}
                  className="block rounded-xl border-2 border-white/10 px-4 py-3 font-display text-base font-bold uppercase hover:border-accent hover:text-accent"
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ButtonLink href={site.wordsPath} className="mt-6 w-full">
          {productCallToAction(site)}
        </ButtonLink>
      </div>
    </div>
  );
}
