import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { App } from "./components/App";
import { homePage, notFoundPage, phrasePage, wordsPage } from "./fixtures/pages";
import { type IslandName, renderIsland } from "./islands";
import type { RenderRequest } from "./types";

// The client hydrates each island as its own root. Hydration is clean only if
// that root renders exactly what the server put inside the island's marker.
describe("islands render alike in the page and on their own", () => {
  const cases: [IslandName, RenderRequest][] = [
    ["menu", homePage],
    ["menu", notFoundPage],
    ["menu", wordsPage(3)],
    ["words", wordsPage(30)],
    ["words", wordsPage(0)],
    ["words", wordsPage(500, { after: true, query: "rawr" })],
    ["menu", phrasePage],
    ["phrase", phrasePage],
  ];

  it.each(cases)("%s on %j", (name, page) => {
    const html = renderToString(<App page={page} />);
    const marker = `<div data-island="${name}" data-route="${page.route}" class="contents">`;
    const standalone = renderToString(renderIsland(name, page));
    expect(html).toContain(`${marker}${standalone}</div>`);
  });

  it("refuses the words island off the words page", () => {
    expect(() => renderIsland("words", homePage)).toThrow(/words page/);
  });

  it("refuses the phrase island off a phrase's page", () => {
    expect(() => renderIsland("phrase", wordsPage(3))).toThrow(/phrase's page/);
  });

  it("keeps a phrase's words and name as text, and links every card to its page", () => {
    const html = renderToString(<App page={phrasePage} />);
    expect(html).toContain("<bdi>&lt;B&gt;BOLD&lt;/B&gt; 🦖</bdi>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    const list = renderToString(<App page={wordsPage(3)} />);
    expect(list).toContain('<a href="/words/p0000">');
  });
});
