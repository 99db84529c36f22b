import type { DinoSpec } from "../art/dino";

export interface MintedDino {
  /** Its number in the collection, from 1. */
  number: number;
  /** What the picture shows, for its alt text. */
  description: string;
  /** The square it is shown on. */
  background: string;
  spec: DinoSpec;
}

/** The ten Dinos minted so far, in minting order. */
export const MINTED_DINOS: readonly MintedDino[] = [
  {
    number: 1,
    description: "a green T-rex with dark green spots and a golden crown",
    background: "#fde68a",
    spec: {
      body: "rex",
      colors: { skin: "#4ade80", belly: "#fef3c7", pattern: "#15803d" },
      eyes: "round",
      pattern: "spots",
      accessories: ["crown"],
    },
  },
  {
    number: 2,
    description: "a smiling blue long-neck with a pink flower on its head",
    background: "#fbcfe8",
    spec: {
      body: "bronto",
      colors: { skin: "#60a5fa", belly: "#dbeafe", pattern: "#1d4ed8" },
      eyes: "happy",
      pattern: "spots",
      accessories: ["flower"],
    },
  },
  {
    number: 3,
    description: "a sleepy orange stegosaurus with yellow plates and a bandana",
    background: "#a5f3fc",
    spec: {
      body: "stego",
      colors: { skin: "#f97316", belly: "#fed7aa", pattern: "#facc15" },
      eyes: "sleepy",
      pattern: "plain",
      accessories: ["bandana"],
    },
  },
  {
    number: 4,
    description: "a wide-eyed purple triceratops with a pink frill and a red bow tie",
    background: "#bbf7d0",
    spec: {
      body: "tricera",
      colors: { skin: "#a78bfa", belly: "#ede9fe", pattern: "#f472b6" },
      eyes: "big",
      pattern: "spots",
      accessories: ["bow-tie"],
    },
  },
  {
    number: 5,
    description: "a red T-rex with dark red stripes and sunglasses",
    background: "#c7d2fe",
    spec: {
      body: "rex",
      colors: { skin: "#f43f5e", belly: "#ffe4e6", pattern: "#9f1239" },
      eyes: "round",
      pattern: "stripes",
      accessories: ["sunglasses"],
    },
  },
  {
    number: 6,
    description: "a teal long-neck with stripes and a purple party hat",
    background: "#fed7aa",
    spec: {
      body: "bronto",
      colors: { skin: "#2dd4bf", belly: "#ccfbf1", pattern: "#0f766e" },
      eyes: "dot",
      pattern: "stripes",
      accessories: ["party-hat"],
    },
  },
  {
    number: 7,
    description: "a grumpy lime stegosaurus with red spots, red plates and a red cap",
    background: "#e9d5ff",
    spec: {
      body: "stego",
      colors: { skin: "#84cc16", belly: "#ecfccb", pattern: "#e11d48" },
      eyes: "angry",
      pattern: "spots",
      accessories: ["cap"],
    },
  },
  {
    number: 8,
    description: "a yellow triceratops with an orange frill and a blue scarf",
    background: "#bae6fd",
    spec: {
      body: "tricera",
      colors: { skin: "#fbbf24", belly: "#fef3c7", pattern: "#ea580c" },
      eyes: "round",
      pattern: "stripes",
      accessories: ["scarf"],
    },
  },
  {
    number: 9,
    description: "a sleepy grey T-rex with a golden halo",
    background: "#fecdd3",
    spec: {
      body: "rex",
      colors: { skin: "#94a3b8", belly: "#f1f5f9", pattern: "#475569" },
      eyes: "sleepy",
      pattern: "spots",
      accessories: ["halo"],
    },
  },
  {
    number: 10,
    description: "a wide-eyed pink long-neck with orange headphones",
    background: "#d9f99d",
    spec: {
      body: "bronto",
      colors: { skin: "#e879f9", belly: "#fae8ff", pattern: "#a21caf" },
      eyes: "big",
      pattern: "spots",
      accessories: ["headphones"],
    },
  },
];
