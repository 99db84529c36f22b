export interface SiteLinks {
  chat: string;
  social: string;
  marketplace: string;
  blog: string;
}

export interface SiteProps {
  /** What a user types and mints; "Words" on the live site. */
  productName: string;
  /** The list's path (`/words`), as the host routes it. */
  wordsPath: string;
  links: SiteLinks;
  pressEmail: string;
}

export interface Phrase {
  id: string;
  word: string;
  name: string;
  /** Where the phrase stands in the newest-first order (with `id` to break ties). */
  created: number;
}

export type CheckStatus = "empty" | "available" | "taken" | "too_long" | "invalid" | "unavailable" | "pending";

/** What the host adds to a verdict: who took the word, or what a free word reads like. */
export interface CheckDetails {
  /** The phrase that took a taken word. */
  taker: Phrase | null;
  /** Up to three free words close to a taken one. */
  alternatives: string[];
  /** A minted phrase that reads the same as a free word (a zero for an O, a Cyrillic І for an I). */
  lookalike: Phrase | null;
}

export interface Check extends CheckDetails {
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
  /** False while the host has no list yet (its source has not answered). */
  loaded?: boolean;
  /** Phrases minted in all (not the matches of a find). */
  count: number;
  /** One page of the list, newest first. */
  phrases: Phrase[];
  /** The `?check=` text: "" for the newest-first list, else `phrases` are the ones containing it. */
  query: string;
  /** Cursor of the following (older) page; null on the last. */
  next: string | null;
  /** Cursor for `?before=` (the newer page); null on the first. */
  prev: string | null;
  check: Check;
}

/** One page of `GET /api/phrases`. */
export interface PhrasePage {
  /** The list version the page was cut from. */
  version: number;
  count: number;
  phrases: Phrase[];
  next: string | null;
  prev: string | null;
}

export interface NotFoundProps {
  site: SiteProps;
  /** The page of a phrase removed while the host ran (410), not one that never was. */
  removed?: boolean;
}

/** One phrase's page. */
export interface PhraseProps {
  site: SiteProps;
  /** The list version the page was made from: where the live feed starts. */
  version: number;
  phrase: Phrase;
  /** The page's absolute URL, which Share passes on. */
  url: string;
  /** Opens a post on the social network with the page's URL and the hashtag. */
  postUrl: string;
}

export type RenderRequest =
  | { route: "home"; props: HomeProps }
  | { route: "words"; props: WordsProps }
  | { route: "not_found"; props: NotFoundProps }
  | { route: "phrase"; props: PhraseProps };

export type Route = RenderRequest["route"];

export const ROUTES: readonly Route[] = ["home", "words", "not_found", "phrase"];

export function isRoute(value: unknown): value is Route {
  return typeof value === "string" && (ROUTES as readonly string[]).includes(value);
}
