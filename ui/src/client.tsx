import { useEffect, type ReactElement } from "react";
import { hydrateRoot } from "react-dom/client";
import { installAnchorFocus } from "./anchorFocus";
import { loadIsland } from "./islands/load";
import { isIslandName, renderWith } from "./islands/render";
import { keepTypedEarly } from "./typedEarly";
import { isRoute, type RenderRequest } from "./types";

function hydrateIslands(): void {
  const source = document.getElementById("__props");
  if (!source?.textContent) throw new Error("page props (#__props) are missing");
  // The host serialises the same props it rendered with; trusted as RenderRequest["props"].
  const props = JSON.parse(source.textContent) as RenderRequest["props"];
  const elements = [...document.querySelectorAll<HTMLElement>("[data-island]")];
  let pending = elements.length;
  const onCommit = () => {
    pending -= 1;
    if (pending === 0) markHydrated();
  };
  if (pending === 0) markHydrated();
  for (const element of elements) keepTypedEarly(element);
  for (const element of elements) {
    const { island, route } = element.dataset;
    if (!isIslandName(island) || !isRoute(route)) {
      throw new Error(`unknown island "${island}" on route "${route}"`);
    }
    const page = { route, props } as RenderRequest;
    void loadIsland(island).then((parts) => {
      hydrateRoot(element, <Committed onCommit={onCommit}>{renderWith(island, page, parts)}</Committed>);
    });
  }
}

/** Tells tests and tools that every island is live: `<html data-hydrated="true">`. */
function markHydrated(): void {
  document.documentElement.dataset.hydrated = "true";
}

/** Renders nothing of its own, so the markup still matches the server's. */
function Committed({ onCommit, children }: { onCommit: () => void; children: ReactElement }) {
  useEffect(onCommit, [onCommit]);
  return children;
}

// Before hydration, which throws on a broken page: links to sections should work regardless.
installAnchorFocus(window);
hydrateIslands();
