import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { App, PageContent } from "../components/App";
import { homePage, notFoundPage, site, wordsPage } from "../fixtures/pages";
import type { RenderRequest } from "../types";
import { framedRenderer, type PageRenders, SLOT } from "./frames";

function counting(): PageRenders & { wholes: number } {
  const renders = {
    wholes: 0,
    whole(page: RenderRequest, slot?: string) {
      renders.wholes += 1;
      return renderToString(<App page={page} content={slot} />);
    },
    content: (page: RenderRequest) => renderToString(<PageContent page={page} />),
  };
  return renders;
}

const whole = (page: RenderRequest) => renderToString(<App page={page} />);

describe("pages rendered with a cached layout", () => {
  const pages: [string, RenderRequest][] = [
    ["home", homePage],
    ["words, 200 phrases", wordsPage(200)],
    ["words, none", wordsPage(0)],
    ["not found", notFoundPage],
  ];

  it.each(pages)("gives %s exactly the markup of a whole render, every time", (_, page) => {
    const render = framedRenderer(counting());
    expect(render(page)).toBe(whole(page));
    expect(render(page)).toBe(whole(page));
  });

  it("renders the layout of the words page once for any list", () => {
    const renders = counting();
    const render = framedRenderer(renders);
    for (const count of [0, 1, 50, 200]) expect(render(wordsPage(count))).toBe(whole(wordsPage(count)));
    expect(renders.wholes).toBe(1);
  });

  it("renders the landing page whole: its images' preloads must lead the page", () => {
    const renders = counting();
    const render = framedRenderer(renders);
    expect(render(homePage)).toMatch(/^<link rel="preload" as="image"/);
    render(homePage);
    expect(renders.wholes).toBe(2);
  });

  it("keeps a layout per site settings", () => {
    const render = framedRenderer(counting());
    const words = wordsPage(3);
    const renamed: RenderRequest = { ...words, props: { ...words.props, site: { ...site, productName: "Roars", wordsPath: "/roars" } } };
    render(words);
    expect(render(renamed)).toBe(whole(renamed));
    expect(render(renamed)).toContain("Last Roars");
  });

  it("refuses a layout that drops or repeats its content", () => {
    const broken = (html: string) => framedRenderer({ whole: () => html, content: () => "<p>x</p>" });
    expect(() => broken("<main></main>")(wordsPage(1))).toThrow(/exactly once/);
    expect(() => broken(SLOT + SLOT)(wordsPage(1))).toThrow(/exactly once/);
  });
});
