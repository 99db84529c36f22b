import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { JOIN_CHAT, VIEW_COLLECTION } from "../data/copy";
import { NAV_ITEMS } from "../data/site";
import { homePage, site } from "../fixtures/pages";
import { App } from "./App";

const html = renderToString(<App page={homePage} />);

interface Link {
  attrs: Record<string, string>;
  text: string;
  /** The alt text of pictures inside, which name an image link. */
  alts: string[];
}

const links: Link[] = [...html.matchAll(/<a\b([^>]*)>(.*?)<\/a>/gs)].map(([, attrs = "", inner = ""]) => ({
  attrs: attributes(attrs),
  text: decode(inner.replace(/<[^>]*>/g, "")).trim(),
  alts: [...inner.matchAll(/<img\b([^>]*)>/g)].map(([, img = ""]) => attributes(img).alt ?? ""),
}));

describe("the landing page", () => {
  it("has its sections in the original's order, then the footer", () => {
    const marks = ['id="intro"', 'id="about"', 'id="why-heading"', 'id="need-you"', 'id="minted-heading"', 'id="team"', 'id="faq"', "<footer"];
    const positions = marks.map((mark) => html.indexOf(mark));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("gives every navigation anchor a focusable section to land on", () => {
    for (const item of NAV_ITEMS) {
      expect(html).toContain(`href="#${item.anchor}"`);
      expect(html).toMatch(new RegExp(`<section id="${item.anchor}" tabindex="-1"`));
    }
  });

  it(`has exactly three "${JOIN_CHAT}" links, to the configured chat, in a new tab`, () => {
    const joins = links.filter((link) => link.text === JOIN_CHAT);
    expect(joins).toHaveLength(3);
    for (const link of joins) {
      expect(link.attrs.href).toBe(site.links.chat);
      expect(link.attrs.target).toBe("_blank");
    }
  });

  it(`links "${VIEW_COLLECTION}" to the marketplace collection`, () => {
    const views = links.filter((link) => link.text === VIEW_COLLECTION);
    expect(views.map((link) => link.attrs.href)).toEqual([site.links.marketplace]);
  });

  it("opens every external link in a new tab, without an opener, with a name", () => {
    const external = links.filter((link) => /^https?:/.test(link.attrs.href ?? ""));
    expect(external.length).toBeGreaterThan(10);
    for (const link of external) {
      expect(link.attrs.target).toBe("_blank");
      expect(link.attrs.rel).toBe("noopener noreferrer");
      expect(link.attrs["aria-label"] ?? (link.text || link.alts.join(" "))).not.toBe("");
    }
    for (const link of links.filter((link) => link.attrs.target === "_blank")) {
      expect(link.attrs.rel).toBe("noopener noreferrer");
    }
  });

  it("answers FAQs by pointing to the configured chat and social profile", () => {
    const faq = html.slice(html.indexOf('id="faq"'));
    expect(faq).toContain(`href="${site.links.chat}"`);
    expect(faq).toContain(`href="${site.links.social}"`);
  });

  it("mentions the hashtag and links to the product page in the same tab", () => {
    expect(html).toContain("#myLastWords");
    const product = links.filter((link) => link.attrs.href === "/words");
    expect(product.length).toBeGreaterThan(0);
    for (const link of product) expect(link.attrs.target).toBeUndefined();
  });

  it("sizes every image, and names it or hides it from screen readers", () => {
    const images = [...html.matchAll(/<img\b([^>]*)>/g)].map(([, attrs = ""]) => attributes(attrs));
    expect(images.length).toBeGreaterThan(20);
    for (const image of images) {
      expect(Number(image.width)).toBeGreaterThan(0);
      expect(Number(image.height)).toBeGreaterThan(0);
      expect(image.alt).toBeDefined();
      if (image.alt === "") expect(image["aria-hidden"]).toBe("true");
    }
    const eager = images.filter((image) => image.loading === "eager");
    expect(eager.map((image) => image.src)).toEqual([expect.stringMatching(/backdrop-mobile/), expect.stringMatching(/hero/)]);
  });

  it("says in its visible text what the project is for, in the seed's words", () => {
    const text = visibleText(html.slice(html.indexOf("<main"), html.indexOf("</main>")));
    for (const words of [
      "more sustainable blockchain",
      "shared responsibility",
      "own art",
      "donation impact",
      "disrupt donation giving",
      "connecting donors and environmentally minded collectors with the non-profits fighting climate change",
    ]) {
      expect(text).toContain(words);
    }
    const minted = html.slice(html.indexOf('id="minted"'), html.indexOf('id="team"'));
    expect(visibleText(minted)).toContain("The first 10 Dinos are minted and donations are starting");
  });

  it("carries no inline style, which the content security policy would refuse", () => {
    expect(html).not.toMatch(/\sstyle=/);
  });
});

function attributes(source: string): Record<string, string> {
  return Object.fromEntries([...source.matchAll(/([a-zA-Z-]+)="([^"]*)"/g)].map(([, name = "", value = ""]) => [name, decode(value)]));
}

/** The text a reader sees: no tags, no alt text, one space between words. */
function visibleText(markup: string): string {
  return decode(markup.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ");
}

function decode(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
