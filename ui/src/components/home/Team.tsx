import { teamArt } from "../../art/catalog";
import { TEAM_COPY } from "../../data/copy";
import { TEAM } from "../../data/team";
import { ArtImage } from "../ArtImage";
import { headlineFit } from "../../headline";
import { Section, SectionHeading } from "./Section";

export function Team() {
  return (
    <Section id="team" className="mx-auto max-w-6xl px-4 py-8 sm:px-6 md:py-12 xl:max-w-7xl">
      <SectionHeading section="team">{TEAM_COPY.heading}</SectionHeading>
      <p className="mt-4 max-w-xl text-lg text-white/80">{TEAM_COPY.intro}</p>
      <ul className="team-grid mt-10 grid [--columns:2] [--gap:0.75rem] sm:[--gap:1.25rem] lg:[--columns:4]">
        {TEAM.map((member) => (
          <li key={member.slug} className="overflow-hidden rounded-3xl border-2 border-white/15 bg-white/[0.03]">
            <ArtImage name={teamArt(member.slug)} alt={`${member.role}: ${member.description}`} className="block h-auto w-full" />
            <div className="@container p-4 sm:p-5">
              <h3
                data-fit={headlineFit(member.role)}
                className="display-fit font-display leading-[1.5] font-black uppercase text-accent [--floor:16px] [--size:1rem] sm:leading-[1.4] sm:[--floor:20px] sm:[--size:1.25rem]"
              >
                {member.role}
              </h3>
              <p className="mt-2 text-sm text-white/80 sm:text-base">{member.blurb}</p>
            </div>
          </li>
        ))}
      </ul>
    </Section>
  );
}
