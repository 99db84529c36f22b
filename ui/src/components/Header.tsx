import { MARKETPLACE_LINK, NAV_ITEMS, navHref } from "../data/site";
import type { RenderRequest } from "../types";
import { IconLink } from "./IconLink";
import { Island } from "./Island";
import { Logo } from "./Logo";

export interface Props {
  page: RenderRequest;
}

export function Header({ page }: Props) {
  const onHome = page.route === "home";
  const { links } = page.props.site;
  return (
    <header className="border-b border-white/10">
      {/* Wraps only under large text on a narrow phone, keeping the menu in reach. */}
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-4 px-4 py-4 sm:px-6 xl:max-w-7xl">
        <Logo />
        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-8">
            {NAV_ITEMS.map((item) => (
              <li key={item.anchor}>
                <a
                  href={navHref(item, onHome)}
                  className="font-display text-sm font-bold uppercase tracking-wide hover:text-accent"
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex items-center gap-1">
          <IconLink href={links[MARKETPLACE_LINK.key]} label={MARKETPLACE_LINK.label} brand={MARKETPLACE_LINK.brand} />
          <Island name="menu" page={page} />
        </div>
      </div>
    </header>
  );
}
