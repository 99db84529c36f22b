import { teamArt } from "../../art/catalog";
import { TEAM_COPY } from "../../data/copy";
import { TEAM } from "../../data/team";
import { ArtImage } from "../ArtImage";
import { Section, SectionHeading } from "./Section";

export function Team() {
  return (
    <Section id="team" className="mx-auto max-w-6xl px-4 py-8 sm:px-6 md:py-12 xl:max-w-7xl">
      <SectionHeading section="team">{TEAM_COPY.heading}</SectionHeading>
      <p className="mt-4 max-w-xl text-lg text-white/80">{TEAM_COPY.intro}</p>
      <ul className="mt-10 grid grid-cols-2 gap-3 sm:gap-5 lg:grid-cols-4">
        {TEAM.map((member) => (
          <li key={member.slug} className="overflow-hidden rounded-3xl border-2 border-white/15 bg-white/[0.03]">
            <ArtImage name={teamArt(member.slug)} alt={`${member.role}: ${member.description}`} className="block h-auto w-full" />
            <div className="p-4 sm:p-5">
              <h3 className="font-display text-base font-black uppercase text-accent sm:text-xl">{member.role}</h3>
              <p className="mt-2 text-sm text-white/80 sm:text-base">{member.blurb}</p>
            </div>
          </li>
        ))}
      </ul>
    </Section>
  );
}
