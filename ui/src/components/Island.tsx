import type { IslandName } from "../islands";
import { renderIsland } from "../islands";
import type { RenderRequest } from "../types";

export interface Props {
  name: IslandName;
  page: RenderRequest;
}

/**
 * Server side of an island: the marker `client.tsx` looks for. The route rides
 * along because the page props alone do not say which page they belong to.
 */
export function Island({ name, page }: Props) {
  return (
    <div data-island={name} data-route={page.route} className="contents">
      {renderIsland(name, page)}
    </div>
  );
}
