import { describe, expect, it } from "vitest";
import { MOST_RESTORED, keptAt, readPlace, restorable, withPlace } from "./place";

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

describe("the phrase a place was kept at", () => {
  it("is that phrase where it was then: one moved since (its time written by hand) is not", () => {
    const kept = readPlace(withPlace({}, { ...place, created: 1_795_000_000_000_000 }));
    expect(kept?.created).toBe(1_795_000_000_000_000);
    if (kept === null) return;
    expect(keptAt(kept, { id: "abc", created: 1_795_000_000_000_000 })).toBe(true);
    expect(keptAt(kept, { id: "abc", created: 1_600_000_000_000_000 })).toBe(false);
    expect(keptAt(kept, { id: "other", created: 1_795_000_000_000_000 })).toBe(false);
    // Kept by a page that kept no time: found by id alone.
    expect(keptAt({ ...place }, { id: "abc", created: 1 })).toBe(true);
    expect(readPlace(withPlace({}, { ...place, created: -1 }))?.created).toBeUndefined();
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
