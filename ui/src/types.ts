export interface SiteLinks {
  chat: string;
  social: string;
  marketplace: string;
  blog: string;
}

export interface SiteProps {
  /** What a user types and mints; "Words" on the live site. */
  productName: string;
  baseUrl: string;
  links: SiteLinks;
  pressEmail: string;
}

export interface Phrase {
  id: string;
  word: string;
  name: string;
}

export type CheckStatus = "empty" | "available" | "taken" | "too_long" | "invalid" | "unavailable";

export interface Check {
  input: string;
  normalized: string;
  length: number;
  status: CheckStatus;
}

export interface HomeProps {
  site: SiteProps;
}

export interface WordsProps {
  site: SiteProps;
  version: number;
  phrases: Phrase[];
  /** False while the host has no list yet (its source has not answered). */
  loaded?: boolean;
  check: Check;
}

export interface NotFoundProps {
  site: SiteProps;
  path: string;
}

export type RenderRequest =
  | { route: "home"; props: HomeProps }
  | { route: "words"; props: WordsProps }
  | { route: "not_found"; props: NotFoundProps };

export type Route = RenderRequest["route"];

export const ROUTES: readonly Route[] = ["home", "words", "not_found"];

export function isRoute(value: unknown): value is Route {
  return typeof value === "string" && (ROUTES as readonly string[]).includes(value);
}
