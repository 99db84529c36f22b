import { dinoArt } from "../../art/catalog";
import { MINTED, VIEW_COLLECTION } from "../../data/copy";
import { MINTED_DINOS } from "../../data/dinos";
import type { SiteProps } from "../../types";
import { ArtImage } from "../ArtImage";
import { ButtonLink } from "../ButtonLink";
import { Section, SectionHeading } from "./Section";

export interface Props {
  site: SiteProps;
}

export function MintedDinos({ site }: Props) {
  return (
    <Section id="minted" className="mx-auto max-w-6xl px-4 pb-8 pt-16 sm:px-6 md:pb-12 md:pt-24 xl:max-w-7xl">
      <div className="flex flex-col gap-6 md:flex-row md:items-end md:justify-between">
        {/* The room the button leaves: the heading's box is sized by it, not by its words. */}
        <div className="min-w-0 flex-1">
          <SectionHeading section="minted">{MINTED.heading}</SectionHeading>
          <p className="mt-4 max-w-xl text-lg text-white/80">{MINTED.body}</p>
        </div>
        <ButtonLink href={site.links.marketplace} newTab className="shrink-0 self-start md:self-auto">
          {VIEW_COLLECTION}
        </ButtonLink>
      </div>
      <ul className="mt-10 grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
        {MINTED_DINOS.map((dino) => (
          <li key={dino.number}>
            <figure className="overflow-hidden rounded-2xl border-2 border-white/15 bg-white/[0.03] transition-transform hover:-translate-y-1 motion-reduce:transition-none">
              <ArtImage name={dinoArt(dino.number)} alt={capitalise(dino.description)} className="block h-auto w-full" />
              <figcaption className="flex items-center justify-between px-3 py-2 font-display text-sm font-black uppercase">
                <span>Dino</span>
                <span className="text-accent">#{dino.number}</span>
              </figcaption>
            </figure>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
