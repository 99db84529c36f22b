import { isRecord } from "../guards";
import { isRoute, type RenderRequest } from "../types";

/**
 * Reads the host's request. The host builds it from typed Rust structs, so
 * only the parts that would otherwise fail obscurely deep in a render are checked.
 */
export function parseRequest(requestJson: string): RenderRequest {
  const value: unknown = JSON.parse(requestJson);
  if (!isRecord(value)) throw new Error("render request must be a JSON object");
  if (!isRoute(value.route)) throw new Error(`unknown route: ${JSON.stringify(value.route)}`);
  if (!isRecord(value.props) || !isRecord(value.props.site)) {
    throw new Error(`route "${value.route}" needs props with a site object`);
  }
  return value as unknown as RenderRequest;
}
