import type { SiteLinks, SiteProps } from "../types";
import type { BrandName } from "../art/brands";

/** The site's name: the logo, and the copy that names the site. */
export const BRAND = "Dinos";

export interface NavItem {
  label: string;
  /** Id of the section on the home page. */
  anchor: string;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { label: `About ${BRAND}`, anchor: "about" },
  { label: "We need you", anchor: "need-you" },
  { label: "FAQ", anchor: "faq" },
  { label: "Team", anchor: "team" },
];

/** Sections live on the home page; elsewhere the link has to go there first. */
export function navHref(item: NavItem, onHome: boolean): string {
  return onHome ? `#${item.anchor}` : `/#${item.anchor}`;
}

export interface CommunityLink {
  key: keyof SiteLinks;
  /** The site's name, which the link is called by. */
  label: string;
  brand: BrandName;
}

export const COMMUNITY_LINKS: readonly CommunityLink[] = [
  { key: "chat", label: "Discord", brand: "discord" },
  { key: "social", label: "X (Twitter)", brand: "x" },
  { key: "marketplace", label: "OpenSea", brand: "opensea" },
  { key: "blog", label: "Medium", brand: "medium" },
];

export const MARKETPLACE_LINK: CommunityLink = { key: "marketplace", label: "OpenSea", brand: "opensea" };

export const FOOTER_COPY = {
  tagline: "THE END IS NEAR, HURRY UP!",
  legal: "Terms & Conditions | Privacy",
  press: "For press inquiries, write to",
  copyright: "© 2022",
} as const;

/** A phrase's own page: /words/{id}, the id encoded as the host encodes it. */
export function phrasePath(site: Pick<SiteProps, "wordsPath">, id: string): string {
  return `${site.wordsPath}/${encodeURIComponent(id)}`;
}

/** The phrases page with the checker's answer on `word`, which works without JavaScript. */
export function checkPath(site: Pick<SiteProps, "wordsPath">, word: string): string {
  return `${site.wordsPath}?check=${encodeURIComponent(word)}`;
}

export function productCallToAction(site: SiteProps): string {
  return `Type your ${site.productName}`;
}
