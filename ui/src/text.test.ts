import { describe, expect, it } from "vitest";
import vectors from "../../tests/vectors/text.json";
import viramas from "../../tests/vectors/viramas.json";
import joining from "../../tests/vectors/joining.json";
import turning from "../../tests/vectors/turning.json";
import { MAX_GRAPHEMES, contentError, findText, invalidReason, graphemeCount, graphemes, groupThousands, fitEdit, isolated, JOINS_LEFT_RE, JOINS_RIGHT_RE, normalizeWord, unknownHere, upperCasesInPlace } from "./text";

interface Vector {
  input: string;
  upper: string;
  graphemes: number;
  error: string | null;
  note: string;
}

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const intlGraphemes = (text: string) => Array.from(segmenter.segment(text), (part) => part.segment);

describe("shared text vectors", () => {
  it.each(vectors as Vector[])("$note", (vector) => {
    const upper = normalizeWord(vector.input);
    expect(upper).toBe(vector.upper);
    expect(graphemeCount(upper)).toBe(vector.graphemes);
    if (unknownHere(upper)) {
      // Unassigned here, which the host (whose Unicode may be newer) judges: it says invalid.
      expect(vector.error).toBe("invalid");
      expect(contentError(upper)).toBeNull();
    } else {
      expect(contentError(upper)).toBe(vector.error);
    }

    // Pasted into an empty box.
    const kept = fitEdit("", vector.input, vector.input.length, MAX_GRAPHEMES).value;
    expect(vector.input.startsWith(kept)).toBe(true);
    if (vector.graphemes <= MAX_GRAPHEMES) {
      expect(kept).toBe(vector.input);
    } else {
      expect(graphemeCount(normalizeWord(kept))).toBeLessThanOrEqual(MAX_GRAPHEMES);
      const next = graphemes(vector.input)[graphemes(kept).length] ?? "";
      expect(graphemeCount(normalizeWord(kept + next))).toBeGreaterThan(MAX_GRAPHEMES);
    }
  });
});

describe("fitEdit", () => {
  const fit = (previous: string, next: string, caret = next.length) => fitEdit(previous, next, caret, 20);

  it("cuts an insertion between its own graphemes, never inside one", () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    expect(fit("", `${"a".repeat(19)}${family}${family}`)).toEqual({ value: `${"a".repeat(19)}${family}`, caret: 19 + family.length, dropped: 1 });
  });

  it("counts the upper-cased form, which can be longer", () => {
    expect(fit("", "ß".repeat(11)).value).toBe("ß".repeat(10));
    expect(fit("a".repeat(19), `${"a".repeat(19)}ß`)).toEqual({ value: "a".repeat(19), caret: 19, dropped: 1 });
  });

  it("refuses a letter typed mid-phrase at the limit, keeping the caret where it was", () => {
    expect(fit("my last words are ok", "my Xlast words are ok", 4)).toEqual({ value: "my last words are ok", caret: 3, dropped: 1 });
    // The same letter where the phrase repeats it: the caret, not the text, says where it went.
    expect(fit("aaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaa", 3)).toEqual({ value: "aaaaaaaaaaaaaaaaaaaa", caret: 2, dropped: 1 });
  });

  it("fits what a paste inserts mid-phrase into the room left, the rest of the phrase kept", () => {
    const pasted = "my last words were never said";
    expect(fit("abc", `a${pasted}bc`, 1 + pasted.length)).toEqual({ value: `a${pasted.slice(0, 17)}bc`, caret: 18, dropped: 12 });
  });

  it("never leaves half of a surrogate pair when an emoji replaced by another does not fit", () => {
    // 🦖 and 🦕 differ only in their second UTF-16 unit.
    const full = `${"a".repeat(19)}🦖`;
    expect(fit(full, `${"a".repeat(19)}🦕b`, 22)).toEqual({ value: `${"a".repeat(19)}🦕`, caret: 21, dropped: 1 });
    expect(fit(full, `${"a".repeat(19)}🦕🦕`, 23)).toEqual({ value: `${"a".repeat(19)}🦕`, caret: 21, dropped: 1 });
  });

  it("lets a selection be replaced, and the phrase be shortened when it came in too long", () => {
    expect(fit("abcdefghijklmnopqrst", "abcXYZhijklmnopqrst", 6)).toEqual({ value: "abcXYZhijklmnopqrst", caret: 6, dropped: 0 });
    expect(fit("abcdefghijklmnopqrst", "abcXYZfghijklmnopqrst", 6)).toEqual({ value: "abcXYfghijklmnopqrst", caret: 5, dropped: 1 });
    const long = "x".repeat(29);
    expect(fit(long, long.slice(1), 0)).toEqual({ value: long.slice(1), caret: 0, dropped: 0 });
    expect(fit(long, `${long}y`)).toEqual({ value: long, caret: 29, dropped: 1 });
  });
});

// The server engine has no Intl, so text.ts carries its own UAX #29 rules;
// this holds them to the browser's Intl.Segmenter.
describe("graphemes agree with Intl.Segmenter", () => {
  it("for every BMP code point next to the characters the rules care about", () => {
    const contexts = [
      (x: string) => `a${x}b`,
      (x: string) => `${x}${x}\u0301`,
      (x: string) => `\u0915\u094D${x}\u093E`,
      (x: string) => `\u{1F600}\u200D${x}\u1161`,
      (x: string) => `\u1100${x}\u11A8`,
    ];
    const mismatches: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      for (const context of contexts) {
        const text = context(char);
        if (graphemeCount(text) !== intlGraphemes(text).length) mismatches.push(`U+${cp.toString(16)} in ${JSON.stringify(text)}`);
      }
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    // 320,000 texts through both segmenters: about 6 s on a 2-core runner, past
    // vitest's 5 s default.
  }, 60_000);

  it("for random strings of emoji, Hangul, Indic and control pieces", () => {
    const pieces = [
      "a", "\r", "\n", "\u0301", "\u200D", "\u200C", "\u{1F600}", "\u{1F469}", "\u{1F3FD}", "\uFE0F",
      "\u{1F1EB}", "\u{1F1F7}", "\u0600", "\u093E", "\u0915", "\u094D", "\u1100", "\u1161", "\u11A8",
      "\uAC00", "\uAC01", "\u0E33", "\u00AD", "\u1039", "\u1000", "\u{E0020}", "\u{E007F}", "\u{1F3F4}",
      "\u{11A3A}", "\u{16D63}",
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const mismatches: string[] = [];
    for (let round = 0; round < 20_000; round++) {
      let text = "";
      const length = 1 + Math.floor(random() * 8);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
      if (graphemes(text).join("|") !== intlGraphemes(text).join("|")) mismatches.push(JSON.stringify(text));
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
  });
});

describe("findText", () => {
  it("looks for the normalised text, and for everything when no phrase could hold it", () => {
    expect(findText("  ab\u00A0 c ")).toBe("AB C");
    expect(findText("a\u200Bb")).toBe("");
    expect(findText("x".repeat(25))).toBe("X".repeat(25));
  });

  it("looks for everything when nothing typed shows, as the host does: a mark alone", () => {
    expect(findText("\u093F")).toBe("");
    expect(findText("\u0301")).toBe("");
  });
});

describe("viramas", () => {
  it("are the host's: a joiner after one, and after nothing else, is part of a word", () => {
    const listed = new Set((viramas as string[]).map((cp) => parseInt(cp.slice(2), 16)));
    // Sinhala letters around: the joiner ends the first cluster, so only the virama rule
    // can let it in. Every virama, and the other marks of the Indic blocks.
    const marks = [...listed];
    for (let cp = 0x0900; cp <= 0x0dff; cp++) if (/^\p{Mn}$/u.test(String.fromCodePoint(cp))) marks.push(cp);
    for (const cp of marks) {
      const word = `\u0D9A${String.fromCodePoint(cp)}\u200D\u0DBB`;
      expect(contentError(word), cp.toString(16)).toBe(listed.has(cp) ? null : "invalid");
    }
  });
});

describe("joining letters", () => {
  it("are the host's, on either side of a non-joiner", () => {
    const inRanges = (ranges: string[]) => {
      const set = new Set<number>();
      for (const range of ranges) {
        const [from, to] = range.split("..").map((hex) => parseInt(hex, 16)) as [number, number];
        for (let cp = from; cp <= to; cp++) set.add(cp);
      }
      return set;
    };
    const left = inRanges(joining.left);
    const right = inRanges(joining.right);
    for (let cp = 0; cp <= 0x1ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      if (JOINS_LEFT_RE.test(char) !== left.has(cp)) expect.fail(`left ${cp.toString(16)}`);
      if (JOINS_RIGHT_RE.test(char) !== right.has(cp)) expect.fail(`right ${cp.toString(16)}`);
    }
    expect(Math.max(...left, ...right)).toBeLessThanOrEqual(0x1ffff);
  });
});

describe("unknownHere", () => {
  // U+0378 stands for a character of a Unicode newer than this engine's.
  it("leaves a character this engine calls unassigned to the host, and names it if the host refuses", () => {
    expect(unknownHere("A\u0378")).toBe(true);
    expect(contentError("A\u0378")).toBeNull();
    expect(findText("a\u0378")).toBe("A\u0378");
    expect(invalidReason("A\u0378")).toBe("character");
    expect(invalidReason("\u0378" + "\u{1F996}".repeat(100))).toBe("bytes");
    // What the page can judge, it still does: a noncharacter, and a problem beside the unknown one.
    for (const refused of ["A\uFDD0", "A\u{10FFFF}", "\u0378\u200B"]) expect(contentError(refused)).toBe("invalid");
    expect(unknownHere("DINO")).toBe(false);
  });
});

describe("groupThousands", () => {
  it("groups as en-US does", () => {
    for (const value of [0, 7, 999, 1000, 12_345, 100_000, 1_234_567]) expect(groupThousands(value)).toBe(value.toLocaleString("en-US"));
  });
});

describe("upperCasesInPlace", () => {
  it("is false only where upper-casing lengthens the text", () => {
    for (const text of ["", "hello", "Ωμέγα", "istanbul ı", "🦖 rawr", "مرحبا"]) expect(upperCasesInPlace(text)).toBe(true);
    for (const text of ["straße", "oﬃce", "ŉ", "ΐ"]) expect(upperCasesInPlace(text)).toBe(false);
  });
});

describe("invalidReason", () => {
  it("names the rule a phrase breaks, so the checker says what to change", () => {
    const family = "👨‍👩‍👧‍👦";
    // 17 of them fit in 20 characters and are 425 bytes: too many for the store.
    expect(contentError(family.repeat(17))).toBe("invalid");
    expect(invalidReason(family.repeat(17))).toBe("bytes");
    expect(invalidReason(`Q${"\u0301".repeat(5)}`)).toBe("marks");
    expect(contentError(`Q${"\u0301".repeat(4)}`)).toBe(null);
    expect(invalidReason("A\u200BB")).toBe("character");
  });
});

describe("isolated", () => {
  it("isolates where a character could turn the line, as the shared ranges say", () => {
    const ranges = turning.ranges.map((range) => {
      const [from = "", to = ""] = range.split("..");
      return [Number.parseInt(from, 16), Number.parseInt(to, 16)] as const;
    });
    const listed = (code: number) => ranges.some(([from, to]) => code >= from && code <= to);
    const wrong: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if ((isolated(char) !== char) !== listed(code)) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it("leaves a phrase that cannot turn anything as it is, with no invisible characters", () => {
    expect(isolated("SEE YOU LATER")).toBe("SEE YOU LATER");
    expect(isolated("ÇA VA 🦕")).toBe("ÇA VA 🦕");
    expect(isolated("שָׁלוֹם ABC")).toBe("\u2068שָׁלוֹם ABC\u2069");
    expect(isolated("مرحبا")).toBe("\u2068مرحبا\u2069");
    expect(isolated("١٢٣")).toBe("\u2068١٢٣\u2069");
  });
});
