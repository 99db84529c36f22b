import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { NO_DETAILS } from "../check";
import { checkPath, phrasePath } from "../data/site";
import { site } from "../fixtures/pages";
import type { Check } from "../types";
import { WordChecker } from "./WordChecker";

const hostile = { id: "a/b?c", word: "<I>DINO</I>", name: `<script>alert("x")</script>&amp;`, created: 1 };

function render(check: Check, composing = false): string {
  return renderToString(
    <WordChecker
      composing={composing}
      action="/words"
      placeholder="Words"
      check={check}
      phraseHref={(id) => phrasePath(site, id)}
      checkHref={(word) => checkPath(site, word)}
    />,
  );
}

const base = { input: "dino", normalized: "DINO", length: 4, ...NO_DETAILS };

describe("the checker's details", () => {
  it("links a taken word to the phrase that took it, the name and word escaped", () => {
    const html = render({ ...base, status: "taken", taker: hostile });
    expect(html).toContain("Already taken");
    expect(html).toContain('href="/words/a%2Fb%3Fc"');
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;");
    expect(html).toContain("&lt;I&gt;DINO&lt;/I&gt;");
    expect(html).not.toContain("<script>");
  });

  it("offers each alternative as a link that checks it", () => {
    const html = render({ ...base, status: "taken", alternatives: ["DINO!", "DINO & CO?", "DINO 🦖"] });
    expect(html).toContain("Free right now:");
    expect(html).toContain('href="/words?check=DINO!"');
    expect(html).toContain('href="/words?check=DINO%20%26%20CO%3F"');
    expect(html).toContain(`href="/words?check=${encodeURIComponent("DINO 🦖")}"`);
    expect(html.match(/<li>/g)).toHaveLength(3);
  });

  it("keeps the message line exact and names the look-alike under it", () => {
    const html = render({ ...base, status: "available", lookalike: hostile });
    expect(html).toMatch(/<p aria-live="polite"[^>]*>It is available!<\/p>/);
    expect(html).toContain("But it reads like");
    expect(html).toContain('href="/words/a%2Fb%3Fc"');
    expect(html).not.toContain("<script>");
  });

  it("shows no details that do not belong to the verdict", () => {
    const html = render({ ...base, status: "available", taker: hostile, alternatives: ["DINO!"] });
    expect(html).not.toContain("Minted by");
    expect(html).not.toContain("Free right now");
    expect(render({ ...base, status: "taken", lookalike: hostile })).not.toContain("reads like");
  });

  it("says why a phrase of emoji too big to store is refused, in words true of the emoji", () => {
    // 15 Scotland flags, 28 bytes each: 15 characters, 420 bytes.
    const scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
    const word = scotland.repeat(15);
    const html = render({ ...base, input: word, normalized: word, length: 15, status: "invalid" });
    expect(html).toContain("Too long to store: at most 400 bytes, and some emoji take more than 30 each");
  });

  it("says nothing of a text an IME is still building, taken, too long or free", () => {
    for (const status of ["taken", "too_long", "available", "invalid"] as const) {
      const html = render({ ...base, status, taker: hostile, alternatives: ["DINO!"], length: 22 }, true);
      expect(html).toMatch(/<p aria-live="polite"[^>]*><!-- -->?<\/p>|<p aria-live="polite"[^>]*><\/p>/);
      expect(html).not.toMatch(/Already taken|At most|available|cannot use/);
      expect(html).toMatch(/<div aria-live="polite"[^>]*hidden/);
    }
  });
});
