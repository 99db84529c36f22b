import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { App } from "./components/App";
import { homePage, notFoundPage, wordsPage } from "./fixtures/pages";
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
});
