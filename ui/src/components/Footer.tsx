import { COMMUNITY_LINKS, FOOTER_COPY } from "../data/site";
import type { SiteProps } from "../types";
import { IconLink } from "./IconLink";

export interface Props {
  site: SiteProps;
}

export function Footer({ site }: Props) {
  return (
    <footer className="border-t border-white/10">
      <div className="mx-auto flex max-w-6xl flex-col items-center gap-6 px-4 py-12 text-center sm:px-6">
        <p className="font-display text-2xl font-black uppercase tracking-tight text-balance text-accent sm:text-3xl">
          {FOOTER_COPY.tagline}
        </p>
        <ul className="flex flex-wrap items-center justify-center gap-2" aria-label="Community">
          {COMMUNITY_LINKS.map((link) => (
            <li key={link.key}>
              <IconLink href={site.links[link.key]} label={link.label} brand={link.brand} />
            </li>
          ))}
        </ul>
        <p className="text-sm text-white/70">{FOOTER_COPY.legal}</p>
        <p className="text-sm text-white/70">
          {`${FOOTER_COPY.press} `}
          <a href={`mailto:${site.pressEmail}`} className="text-white underline underline-offset-4 hover:text-accent">
            {site.pressEmail}
          </a>
        </p>
        <p className="text-xs text-white/60">{FOOTER_COPY.copyright}</p>
      </div>
    </footer>
  );
}
