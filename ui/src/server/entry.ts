// Must stay the first import: React's server build needs these while it loads.
import "./polyfills";
import { createElement } from "react";
import { renderToString } from "react-dom/server.browser";
import { App, PageContent } from "../components/App";
import { framedRenderer } from "./frames";
import { parseRequest } from "./request";

export interface Renderer {
  /** `{route, props}` as JSON in; the page body's HTML out. Throws on an unknown route. */
  render(requestJson: string): string;
}

const renderPage = framedRenderer({
  whole: (page, slot) => renderToString(createElement(App, { page, content: slot })),
  content: (page) => renderToString(createElement(PageContent, { page })),
});

const renderer: Renderer = {
  render(requestJson) {
    return renderPage(parseRequest(requestJson));
  },
};

(globalThis as { __lastwords?: Renderer }).__lastwords = renderer;
