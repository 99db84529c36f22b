import { describe, expect, it } from "vitest";
import { evaluateCheck, takenWords } from "./check";

const taken = takenWords([
  { id: "1", word: "RAWR", name: "Rex" },
  { id: "2", word: "STRASSE", name: "Ute" },
]);

describe("evaluateCheck", () => {
  it("asks for input when there is none", () => {
    expect(evaluateCheck("", taken)).toEqual({ input: "", normalized: "", length: 0, status: "empty" });
  });

  it("compares the upper-cased input with minted words", () => {
    expect(evaluateCheck("rawr", taken).status).toBe("taken");
    expect(evaluateCheck("straße", taken)).toEqual({
      input: "straße",
      normalized: "STRASSE",
      length: 7,
      status: "taken",
    });
    expect(evaluateCheck("rawr!", taken).status).toBe("available");
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
