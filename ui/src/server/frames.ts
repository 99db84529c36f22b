import type { RenderRequest } from "../types";

/** Stands in for the page content while a frame renders; never user data. */
export const SLOT = "\u{F8FF}lastwords-page-content\u{F8FF}";

/** Far more than the routes times the one site setting a process has. */
const MAX_FRAMES = 16;

export interface PageRenders {
  /** The whole page, or with `slot` as its content when given. */
  whole(page: RenderRequest, slot?: string): string;
  /** Only what goes in the layout's `<main>`. */
  content(page: RenderRequest): string;
}

/**
 * Renders pages with their layout (header, footer) rendered once per route and
 * site settings, all that the layout reads: in the server's engine the layout
 * costs as much as some 75 phrase cards. The output is exactly a whole render's.
 *
 * React hoists resource hints (image preloads) to the start of its output, so
 * a page whose content has some must render whole for them to lead the page.
 */
export function framedRenderer(renders: PageRenders): (page: RenderRequest) => string {
  const frames = new Map<string, readonly [string, string]>();
  const hoisting = new Set<string>();

  const frameFor = (page: RenderRequest, key: string): readonly [string, string] => {
    let frame = frames.get(key);
    if (frame === undefined) {
      const html = renders.whole(page, SLOT);
      const at = html.indexOf(SLOT);
      if (at < 0 || html.indexOf(SLOT, at + 1) >= 0) {
        throw new Error("the layout must render its content exactly once");
      }
      frame = [html.slice(0, at), html.slice(at + SLOT.length)];
      if (frames.size >= MAX_FRAMES) frames.clear();
      frames.set(key, frame);
    }
    return frame;
  };

  return (page) => {
    if (hoisting.has(page.route)) return renders.whole(page);
    const content = renders.content(page);
    if (content.startsWith("<link")) {
      hoisting.add(page.route);
      return renders.whole(page);
    }
    const [before, after] = frameFor(page, `${page.route}\n${JSON.stringify(page.props.site)}`);
    return before + content + after;
  };
}
