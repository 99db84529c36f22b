import { WHY } from "../../data/copy";
import { headlineFit } from "../../headline";
import { Section, SectionHeading } from "./Section";

export function Why() {
  return (
    <Section id="why" className="mx-auto max-w-6xl px-4 py-16 sm:px-6 md:py-24 xl:max-w-7xl">
      <SectionHeading section="why" className="max-w-4xl">
        {WHY.heading}
      </SectionHeading>
      <ol className="mt-10 grid gap-5 md:grid-cols-3">
        {WHY.points.map((point, index) => (
          <li key={point.title} className="@container rounded-3xl border-2 border-white/15 bg-white/[0.03] p-6">
            <p aria-hidden="true" className="font-display text-4xl font-black text-accent">
              {String(index + 1).padStart(2, "0")}
            </p>
            <h3
              data-fit={headlineFit(point.title)}
              className="display-fit mt-3 font-display leading-[1.4] font-black uppercase [--floor:20px] [--size:1.25rem]"
            >
              {point.title}
            </h3>
            <p className="mt-3 text-white/80">{point.body}</p>
          </li>
        ))}
      </ol>
    </Section>
  );
}
