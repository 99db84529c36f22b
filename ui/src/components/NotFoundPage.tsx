import type { NotFoundProps } from "../types";
import { ButtonLink } from "./ButtonLink";

export type Props = NotFoundProps;

export function NotFoundPage(_: Props) {
  return (
    <section className="mx-auto max-w-6xl px-4 py-24 sm:px-6">
      <h1 className="font-display text-4xl font-black tracking-tight sm:text-6xl">Page not found</h1>
      <p className="mt-6 text-lg text-white/80">
        Nothing lives here. It may have gone extinct.
      </p>
      <ButtonLink href="/" variant="outline" className="mt-10">
        Back to the home page
      </ButtonLink>
    </section>
  );
}
