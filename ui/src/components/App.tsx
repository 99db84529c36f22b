import type { ReactNode } from "react";
import type { RenderRequest } from "../types";
import { HomePage } from "./HomePage";
import { Layout } from "./Layout";
import { NotFoundPage } from "./NotFoundPage";
import { PhrasePage } from "./PhrasePage";
import { WordsPage } from "./WordsPage";

export interface Props {
  page: RenderRequest;
  /** In place of the route's content: the server renders the layout once around a marker. */
  content?: ReactNode;
}

/** The whole page body the host wraps in its document shell. */
export function App({ page, content }: Props) {
  return <Layout page={page}>{content ?? <PageContent page={page} />}</Layout>;
}

/** What goes in `<main>`: everything of the page that is not the layout. */
export function PageContent({ page }: { page: RenderRequest }) {
  switch (page.route) {
    case "home":
      return <HomePage {...page.props} />;
    case "words":
      return <WordsPage page={page} />;
    case "not_found":
      return <NotFoundPage {...page.props} />;
    case "phrase":
      return <PhrasePage page={page} />;
  }
}
