import { FAQ_COPY, JOIN_CHAT } from "../../data/copy";
import { faqEntries, type AnswerPart } from "../../data/faq";
import { MAX_GRAPHEMES } from "../../text";
import type { SiteProps } from "../../types";
import { ButtonLink } from "../ButtonLink";
import { NEW_TAB_LINK } from "../newTab";
import { Section, SectionHeading } from "./Section";

export interface Props {
  site: SiteProps;
}

export function Faq({ site }: Props) {
  return (
    <Section id="faq" className="mx-auto grid max-w-6xl gap-10 px-4 pb-16 pt-8 sm:px-6 md:pb-24 md:pt-12 lg:grid-cols-[1fr_2fr] lg:gap-16 xl:max-w-7xl">
      <div className="flex flex-col items-start gap-6">
        <SectionHeading section="faq">{FAQ_COPY.heading}</SectionHeading>
        <p className="max-w-sm text-lg text-white/85">{FAQ_COPY.more}</p>
        <ButtonLink href={site.links.chat} newTab>
          {JOIN_CHAT}
        </ButtonLink>
      </div>
      <div className="divide-y-2 divide-white/10 border-y-2 border-white/10">
        {faqEntries(site.productName, MAX_GRAPHEMES).map((entry) => (
          <details key={entry.question} className="faq">
            <summary className="flex cursor-pointer list-none items-center justify-between gap-4 py-5 font-display text-lg font-black uppercase hover:text-accent sm:text-xl">
              {entry.question}
              <span aria-hidden="true" className="faq-marker grid size-8 shrink-0 place-items-center rounded-full border-2 border-current text-xl leading-none">
                +
              </span>
            </summary>
            <p className="pb-6 text-lg text-white/85">
              {entry.answer.map((part, index) => (
                <Answer key={index} part={part} site={site} />
              ))}
            </p>
          </details>
        ))}
      </div>
    </Section>
  );
}

const LINK = "font-semibold text-accent underline underline-offset-4 hover:text-accent-strong";

function Answer({ part, site }: { part: AnswerPart; site: SiteProps }) {
  if (typeof part === "string") return part;
  if (part.to === "product") {
    return (
      <a href={site.wordsPath} className={LINK}>
        {part.text}
      </a>
    );
  }
  return (
    <a href={site.links[part.to]} {...NEW_TAB_LINK} className={LINK}>
      {part.text}
    </a>
  );
}
