import { describe, expect, it } from "vitest";
import { MOST_RESTORED, readPlace, restorable, withPlace } from "./place";

const place = { query: "", loaded: 400, id: "abc", index: 351, top: -12 };

describe("the place kept in a history entry", () => {
  it("is read back as it was kept, beside what else the entry holds", () => {
    const state = withPlace({ other: 1 }, place);
    expect(state).toEqual({ other: 1, wordsPlace: place });
    expect(readPlace(state)).toEqual(place);
    expect(withPlace(state, null)).toEqual({ other: 1 });
  });

  it("is nothing when the entry holds none, or one another page or version could have written", () => {
    for (const state of [null, undefined, 1, "x", [], {}, { wordsPlace: null }, { wordsPlace: [] }]) expect(readPlace(state)).toBeNull();
    for (const odd of [
      { loaded: -1 },
      { loaded: 1.5 },
      { loaded: "400" },
      { index: Number.MAX_VALUE },
      { top: Number.NaN },
      { top: Infinity },
      { id: 7 },
      { query: null },
    ]) {
      expect(readPlace({ wordsPlace: { ...place, ...odd } })).toBeNull();
    }
  });
});

describe("a place the page restores itself", () => {
  it("is one past the host's first page, and not so far down that loading it again would be a crawl", () => {
    expect(restorable(null, 48)).toBe(false);
    expect(restorable({ ...place, loaded: 48 }, 48)).toBe(false);
    expect(restorable({ ...place, loaded: 49 }, 48)).toBe(true);
    expect(restorable({ ...place, loaded: MOST_RESTORED }, 48)).toBe(true);
    expect(restorable({ ...place, loaded: MOST_RESTORED + 1 }, 48)).toBe(false);
  });
});
