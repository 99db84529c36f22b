import type { ReactNode } from "react";
import type { RenderRequest } from "../types";
import { Footer } from "./Footer";
import { Header } from "./Header";
import { NEW_TAB_NOTE_ID } from "./newTab";

export interface Props {
  page: RenderRequest;
  children: ReactNode;
}

export function Layout({ page, children }: Props) {
  return (
    <div className="flex min-h-screen flex-col bg-black text-white">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-accent focus:px-4 focus:py-2 focus:text-black"
      >
        Skip to content
      </a>
      <Header page={page} />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        {children}
      </main>
      <Footer site={page.props.site} />
      <span id={NEW_TAB_NOTE_ID} hidden>
        Opens in a new tab
      </span>
    </div>
  );
}
