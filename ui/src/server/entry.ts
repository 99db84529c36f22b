// Must stay the first import: React's server build needs these while it loads.
import "./polyfills";
import { createElement } from "react";
import { renderToString } from "react-dom/server.browser";
import { App } from "../components/App";
import { parseRequest } from "./request";

export interface Renderer {
  /** `{route, props}` as JSON in; the page body's HTML out. Throws on an unknown route. */
  render(requestJson: string): string;
}

const renderer: Renderer = {
  render(requestJson) {
    return renderToString(createElement(App, { page: parseRequest(requestJson) }));
  },
};

(globalThis as { __lastwords?: Renderer }).__lastwords = renderer;
