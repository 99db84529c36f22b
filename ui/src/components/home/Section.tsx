import type { ReactNode } from "react";
import { classNames } from "../../classNames";

export interface Props {
  /** The anchor the navigation links to, e.g. `about` for `#about`. */
  id: string;
  className?: string;
  children: ReactNode;
}

/**
 * A landing-page section. It takes focus (not by Tab) so an anchor link can
 * move a keyboard or screen-reader user to it, and is named by its heading.
 */
export function Section({ id, className, children }: Props) {
  return (
    <section id={id} tabIndex={-1} aria-labelledby={headingId(id)} className={classNames("relative focus:outline-none", className)}>
      {children}
    </section>
  );
}

export interface HeadingProps {
  /** The id of the section it names. */
  section: string;
  className?: string;
  children: ReactNode;
}

export function SectionHeading({ section, className, children }: HeadingProps) {
  return (
    <h2
      id={headingId(section)}
      className={classNames("font-display text-3xl font-black uppercase leading-[1.05] tracking-tight text-balance sm:text-5xl", className)}
    >
      {children}
    </h2>
  );
}

function headingId(section: string): string {
  return `${section}-heading`;
}
