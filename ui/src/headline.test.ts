import { describe, expect, it } from "vitest";
import { headlineFit, lineFit } from "./headline";

describe("headlineFit", () => {
  it("measures printable ASCII a character at a time as it measures graphemes", () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
    // A no-break space sends a phrase down the general path and adds no width.
    const general = (word: string) => headlineFit(`${word}\u00a0`);
    for (let start = 0; start < printable.length; start += 7) {
      const word = printable.slice(start, start + 20);
      expect(headlineFit(word), word).toBe(general(word));
    }
    for (const word of ["W".repeat(20), "ILOVEDINOSAURSSOMUCH", "a lower case one", "I".repeat(20), "MM MM"]) {
      expect(headlineFit(word), word).toBe(general(word));
    }
  });

  it("fits the widest word, not the line", () => {
    expect(headlineFit("HI")).toBe(6);
    expect(headlineFit("GOODBYE FOREVER MY!!")).toBe(6);
    expect(headlineFit("W".repeat(20))).toBe(20);
  });

  it("takes each emoji and each ideograph as a word: a line breaks between them", () => {
    expect(headlineFit("😀".repeat(20))).toBe(6);
    expect(headlineFit("漢字".repeat(10))).toBe(6);
    expect(headlineFit(`HELLO🦖${"W".repeat(12)}`)).toBe(headlineFit("W".repeat(12)));
    expect(headlineFit("🇫🇷🇩🇪")).toBe(6);
  });
});

describe("lineFit", () => {
  it("fits the whole line typed, spaces and all", () => {
    expect(lineFit("HI")).toBe(6);
    // Seven and seven capitals of 0.82 em or less and a space: 11.4 em.
    expect(lineFit("GOODBYE FOREVER")).toBe(13);
    expect(lineFit("GOODBYE FOREVER MY!!")).toBe(15);
    expect(lineFit("W".repeat(20))).toBe(20);
  });

  it("reads lower case as the capitals the box shows", () => {
    expect(lineFit("goodbye forever my!!")).toBe(lineFit("GOODBYE FOREVER MY!!"));
  });

  it("gives emoji and letters it does not know their width, up to the widest step", () => {
    expect(lineFit("🦖".repeat(9))).toBe(13);
    expect(lineFit("Ǆ".repeat(20))).toBe(35);
    expect(lineFit("A\u20DD".repeat(20))).toBe(40);
  });
});
