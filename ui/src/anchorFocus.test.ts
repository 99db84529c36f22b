import { describe, expect, it } from "vitest";
import { idFromHash, sameDocumentTarget } from "./anchorFocus";

const home = { href: "https://dinos.example/", origin: "https://dinos.example", pathname: "/", search: "" };
const words = { href: "https://dinos.example/words", origin: "https://dinos.example", pathname: "/words", search: "" };

describe("which links stay on the page", () => {
  it("finds the section of a fragment on this page", () => {
    expect(sameDocumentTarget("https://dinos.example/#about", home)).toBe("about");
    expect(sameDocumentTarget("#need-you", home)).toBe("need-you");
  });

  it("leaves links to another page or site to the browser", () => {
    expect(sameDocumentTarget("https://dinos.example/#about", words)).toBeNull();
    expect(sameDocumentTarget("https://chat.example/#about", home)).toBeNull();
    expect(sameDocumentTarget("https://dinos.example/words", home)).toBeNull();
    expect(sameDocumentTarget("https://dinos.example/?q=1#faq", home)).toBeNull();
  });

  it("ignores empty fragments and decodes the rest", () => {
    expect(sameDocumentTarget("https://dinos.example/#", home)).toBeNull();
    expect(idFromHash("")).toBeNull();
    expect(idFromHash("#caf%C3%A9")).toBe("café");
    expect(idFromHash("#100%")).toBe("100%");
  });
});
