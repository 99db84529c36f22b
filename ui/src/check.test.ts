import { describe, expect, it } from "vitest";
import { NO_DETAILS, evaluateCheck, parseCheckAnswer, takenWords, withDetails } from "./check";

const taken = takenWords([
  { id: "1", word: "RAWR", name: "Rex", created: 2 },
  { id: "2", word: "STRASSE", name: "Ute", created: 1 },
]);

describe("takenWords", () => {
  it("holds the words of every list given", () => {
    expect([...takenWords([{ id: "a", word: "A", name: "n", created: 1 }], [{ id: "b", word: "B", name: "n", created: 2 }])]).toEqual(["A", "B"]);
  });
});

const rex = { id: "r/1", word: "RAWR", name: "<b>Rex</b>", created: 2 };

describe("parseCheckAnswer", () => {
  it("reads the host's answer and refuses what is not one", () => {
    expect(parseCheckAnswer({ word: "RAWR", length: 4, available: false, version: 3 })).toEqual({
      word: "RAWR",
      answer: { verdict: "taken", ...NO_DETAILS },
    });
    expect(parseCheckAnswer({ word: "RAWR", length: 4, available: true, version: 3 })?.answer.verdict).toBe("available");
    expect(parseCheckAnswer({ word: "RAWR" })).toBeNull();
  });

  it("reads the taker, the alternatives and the look-alike, and refuses them malformed", () => {
    const taken = { word: "RAWR", length: 4, available: false, version: 3, taker: rex, alternatives: ["RAWR!", "RAWR?"], lookalike: null };
    expect(parseCheckAnswer(taken)?.answer).toEqual({ verdict: "taken", taker: rex, alternatives: ["RAWR!", "RAWR?"], lookalike: null });
    const alike = { word: "RAWR", length: 4, available: true, version: 3, taker: null, alternatives: [], lookalike: rex };
    expect(parseCheckAnswer(alike)?.answer.lookalike).toEqual(rex);
    expect(parseCheckAnswer({ ...taken, taker: { id: 1 } })).toBeNull();
    expect(parseCheckAnswer({ ...taken, alternatives: [1] })).toBeNull();
    expect(parseCheckAnswer({ ...alike, lookalike: "RAWR" })).toBeNull();
  });
});

describe("withDetails", () => {
  const answer = { verdict: "taken" as const, taker: rex, alternatives: ["RAWR!"], lookalike: null };

  it("adds the host's details to the same verdict on the same word", () => {
    const check = withDetails(evaluateCheck("rawr", taken), answer);
    expect(check.taker).toEqual(rex);
    expect(check.alternatives).toEqual(["RAWR!"]);
  });

  it("shows no details from an answer that disagrees with the verdict", () => {
    expect(withDetails(evaluateCheck("rawr", taken), { ...answer, verdict: "available" })).toEqual(evaluateCheck("rawr", taken));
    expect(withDetails(evaluateCheck("rawr", taken), undefined).taker).toBeNull();
  });
});

describe("evaluateCheck", () => {
  it("takes the host's verdict on a character this browser's Unicode does not know", () => {
    // U+0378 stands for the newest emoji on a browser a version behind the host.
    expect(evaluateCheck("\u0378", taken).status).toBe("pending");
    expect(evaluateCheck("\u0378", taken, () => "available").status).toBe("available");
    expect(evaluateCheck("\u0378", taken, () => "invalid").status).toBe("invalid");
  });

  it("asks for input when there is none", () => {
    expect(evaluateCheck("", taken)).toEqual({ input: "", normalized: "", length: 0, status: "empty", ...NO_DETAILS });
  });

  it("compares the upper-cased input with minted words", () => {
    expect(evaluateCheck("rawr", taken).status).toBe("taken");
    expect(evaluateCheck("straße", taken)).toEqual({
      input: "straße",
      normalized: "STRASSE",
      length: 7,
      status: "taken",
      ...NO_DETAILS,
    });
    expect(evaluateCheck("rawr!", taken, () => "available").status).toBe("available");
  });

  it("waits for the host when the phrases it holds cannot tell, and asks about the normalised word", () => {
    expect(evaluateCheck("rawr!", taken).status).toBe("pending");
    const asked: string[] = [];
    const check = evaluateCheck(" raw\u00A0r ", taken, (word) => {
      asked.push(word);
      return word === "RAW R" ? "taken" : undefined;
    });
    expect(check.status).toBe("taken");
    expect(asked).toEqual(["RAW R"]);
  });

  it("answers from the content rules and the held phrases without asking", () => {
    const ask = () => {
      throw new Error("asked the host");
    };
    expect(evaluateCheck("", taken, ask).status).toBe("empty");
    expect(evaluateCheck("ra\u200Bwr", taken, ask).status).toBe("invalid");
    expect(evaluateCheck("x".repeat(21), taken, ask).status).toBe("too_long");
    expect(evaluateCheck("Straße", taken, ask).status).toBe("taken");
  });

  it("refuses what the host refuses, so an invisible twin never reads as free", () => {
    expect(evaluateCheck("ra\u200Bwr", taken).status).toBe("invalid");
    expect(evaluateCheck("  rawr ", taken).status).toBe("taken");
    expect(evaluateCheck("raw\u00A0\u00A0r", taken).normalized).toBe("RAW R");
    expect(evaluateCheck("\u{1F996}".repeat(100).split("").join(""), taken).status).toBe("too_long");
  });

  it("reports length over the limit before anything else", () => {
    const check = evaluateCheck("ß".repeat(11), taken);
    expect(check.status).toBe("too_long");
    expect(check.length).toBe(22);
  });
});
