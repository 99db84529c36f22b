/**
 * The words of the landing page. Where the original is quoted the text is
 * exact; the rest is ours. Lines that name the product (what visitors type and
 * mint, "Words" on the live site) take it as an argument.
 */

import { BRAND } from "./site";

/** The label of every button to the community chat: there are three on `/`. */
export const JOIN_CHAT = "Join on Discord";

/** The button to the marketplace collection. */
export const VIEW_COLLECTION = "View on Opensea";

export function hashtag(productName: string): string {
  return `#myLast${productName}`;
}

export const INTRO = {
  eyebrow: "NFTs for the climate",
  heading: "The dinosaurs never saw it coming. We do.",
  mission:
    `${BRAND} is a collection of dinosaur NFTs that raises money for climate non-profits. What you pay for a Dino goes to the people working to keep this planet livable, so the next mass extinction never comes.`,
  /** Alt text of the hero picture, which links to the community chat. */
  heroAlt: `Come and talk with the ${BRAND} community: a green T-rex says hello from a hill`,
} as const;

export const ABOUT = {
  heading: "Help us save the world and build the first world-saving NFT collection",
  paragraphs: [
    "An asteroid ended the age of the dinosaurs. Ours is ending more slowly, and this time we can see it coming and still change course. Keeping the planet livable is a shared responsibility, and every Dino carries that message.",
    `We want to disrupt donation giving, connecting donors and environmentally minded collectors with the non-profits fighting climate change. ${BRAND} brings the dinosaurs back as characters you can collect, each with its own body, colours, eyes and props; the money raised goes to those non-profits, and we share every donation and who received it with the community, so you can see where your Dino went.`,
  ],
  imageAlt: "An orange long-neck Dino in a scarf next to a young tree, on the Earth at night",
} as const;

export const WHY = {
  heading: "Why saving the world through an NFT collection?",
  points: [
    {
      title: "People keep what they love",
      body: "Buy a Dino to own art you can hold on to, show off and trade, or to join a project that creates donation impact. Giving to the climate becomes joining something, not only paying for something.",
    },
    {
      title: "Every sale is public",
      body: "Sales happen on a public blockchain that anyone can read, and we want a more sustainable blockchain, not a hungrier one. We post each donation next to the sales it came from.",
    },
    {
      title: "Last words start a conversation",
      body: "Asking what you would say at the end of the world is a way to talk about how to keep it from ending.",
    },
  ],
} as const;

export const NEED_YOU = {
  heading: "We need you",
  question: "If the world ended tomorrow, what would your last words be?",
  ask: (productName: string) =>
    `Type your Last ${productName}, see whether they are still free, and share them with ${hashtag(productName)}. Then come and meet the herd: the community helps decide what comes next, from new Dinos to the non-profits we give to.`,
} as const;

export const MINTED = {
  heading: "The first 10 Dinos are minted",
  body: "The first 10 Dinos are minted and donations are starting. Each one is one of a kind; the rest of the herd is on its way.",
} as const;

export const TEAM_COPY = {
  heading: "Team",
  intro: "Four friends who would rather save the world than watch it end.",
} as const;

export const FAQ_COPY = {
  heading: "FAQ",
  more: "What people ask us most. For anything else, the whole team is in the chat.",
} as const;
