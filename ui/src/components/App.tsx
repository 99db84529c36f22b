import type { RenderRequest } from "../types";
import { HomePage } from "./HomePage";
import { Layout } from "./Layout";
import { NotFoundPage } from "./NotFoundPage";
import { WordsPage } from "./WordsPage";

export interface Props {
  page: RenderRequest;
}

/** The whole page body the host wraps in its document shell. */
export function App({ page }: Props) {
  return (
    <Layout page={page}>
      <PageContent page={page} />
    </Layout>
  );
}

function PageContent({ page }: Props) {
  switch (page.route) {
    case "home":
      return <HomePage {...page.props} />;
    case "words":
      return <WordsPage page={page} />;
    case "not_found":
      return <NotFoundPage {...page.props} />;
  }
}
