import type { DinoSpec } from "../art/dino";

export interface TeamMember {
  /** How the team is known: the role stands in for the name. */
  role: string;
  /** One line on what they do. */
  blurb: string;
  /** What the portrait shows, for its alt text. */
  description: string;
  /** A short, stable key for the portrait's file name. */
  slug: string;
  background: string;
  spec: DinoSpec;
}

export const TEAM: readonly TeamMember[] = [
  {
    role: "The Creator",
    blurb: "Draws every Dino and dreamed up the collection.",
    description: "a green T-rex in a red beret, holding a paintbrush",
    slug: "creator",
    background: "#fde68a",
    spec: {
      body: "rex",
      colors: { skin: "#22c55e", belly: "#dcfce7", pattern: "#15803d" },
      eyes: "happy",
      pattern: "spots",
      accessories: ["beret", "brush"],
    },
  },
  {
    role: "The Wise",
    blurb: "Picks the climate non-profits and keeps us honest about every donation.",
    description: "an old grey-green long-neck with a white beard and round glasses",
    slug: "wise",
    background: "#c4b5fd",
    spec: {
      body: "bronto",
      colors: { skin: "#7c9a82", belly: "#e7e5e4", pattern: "#4d6b53" },
      eyes: "sleepy",
      pattern: "plain",
      accessories: ["beard", "glasses"],
    },
  },
  {
    role: "The Tech Guy",
    blurb: "Builds the contracts, the site and the Last Words wall.",
    description: "a blue striped T-rex typing on a laptop",
    slug: "tech-guy",
    background: "#bbf7d0",
    spec: {
      body: "rex",
      colors: { skin: "#38bdf8", belly: "#e0f2fe", pattern: "#0369a1" },
      eyes: "round",
      pattern: "stripes",
      accessories: ["laptop"],
    },
  },
  {
    role: "The Guitar Boy",
    blurb: "Runs the community and plays it out when the end comes.",
    description: "an orange T-rex playing an acoustic guitar",
    slug: "guitar-boy",
    background: "#fbcfe8",
    spec: {
      body: "rex",
      colors: { skin: "#fb923c", belly: "#ffedd5", pattern: "#c2410c" },
      eyes: "big",
      pattern: "spots",
      accessories: ["guitar"],
    },
  },
];
