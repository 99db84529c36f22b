/** The ink outline every scenery drawing shares. */
import { INK } from "../palette";

export const LINE = { stroke: INK, "stroke-width": 6, "stroke-linejoin": "round", "stroke-linecap": "round" } as const;
