import type { SiteLinks } from "../types";
import { hashtag } from "./copy";
import { BRAND } from "./site";

/** A piece of an answer: plain text, or a link to the chat, the social profile or the product page. */
export type AnswerPart = string | { to: keyof Pick<SiteLinks, "chat" | "social"> | "product"; text: string };

export interface FaqEntry {
  question: string;
  answer: readonly AnswerPart[];
}

/**
 * Questions visitors ask, answered by pointing to where the answer lives: the
 * community chat and the social profile, which the host configures.
 */
export function faqEntries(productName: string, maxLength: number): readonly FaqEntry[] {
  return [
    {
      question: `What is ${BRAND}?`,
      answer: [
        "A collection of dinosaur NFTs that raises money for non-profits working on the climate crisis. News of the collection comes first on ",
        { to: "social", text: "our social profile" },
        ".",
      ],
    },
    {
      question: "Where does the money go?",
      answer: [
        "To climate non-profits. We announce every donation, and who received it, in ",
        { to: "chat", text: "the community chat" },
        ", where you can also ask us about it.",
      ],
    },
    {
      question: "How do I get a Dino?",
      answer: [
        "New Dinos are minted in drops. Each drop is announced in ",
        { to: "chat", text: "the community chat" },
        " and on ",
        { to: "social", text: "our social profile" },
        " before it opens.",
      ],
    },
    {
      question: `What are Last ${productName}?`,
      answer: [
        `A phrase of up to ${maxLength} characters that you would leave behind if the world ended. Each phrase can be taken only once: `,
        { to: "product", text: `check yours on the Last ${productName} page` },
        ` and share it with ${hashtag(productName)}.`,
      ],
    },
    {
      question: "Who can I ask something else?",
      answer: ["Everyone on the team reads ", { to: "chat", text: "the community chat" }, ". Ask there, and the herd will help too."],
    },
  ];
}
