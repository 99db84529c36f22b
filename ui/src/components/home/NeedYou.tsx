import { NEED_YOU, hashtag } from "../../data/copy";
import type { SiteProps } from "../../types";
import { ArtImage } from "../ArtImage";
import { JoinButtons } from "./JoinButtons";
import { Section, SectionHeading } from "./Section";

export interface Props {
  site: SiteProps;
}

export function NeedYou({ site }: Props) {
  const tag = hashtag(site.productName);
  const [before, after] = NEED_YOU.ask(site.productName).split(tag);
  return (
    <Section id="need-you" className="border-y-2 border-white/10 bg-[#04100a]">
      <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 py-16 sm:px-6 md:grid-cols-[2fr_3fr] md:py-24 xl:max-w-7xl">
        <ArtImage name="need-you" className="mx-auto h-auto w-full max-w-72 md:max-w-sm" />
        <div>
          <SectionHeading section="need-you" accent large>
            {NEED_YOU.heading}
          </SectionHeading>
          <p className="mt-6 font-display text-xl font-bold sm:text-2xl">{NEED_YOU.question}</p>
          <p className="mt-4 text-lg text-white/85">
            {before}
            <strong className="font-display font-black text-accent">{tag}</strong>
            {after}
          </p>
          <JoinButtons site={site} />
        </div>
      </div>
    </Section>
  );
}
