import { describe, expect, it } from "vitest";
import {
  BACKOFF_CAP_MS,
  BACKOFF_START_MS,
  RECHECK_MOST,
  RESYNC,
  applyMessage,
  backoffDelay,
  compareCodePoints,
  initialFeed,
  liveUrl,
  matches,
  needsFirstPage,
  parseMessage,
  parsePage,
  receiveFirst,
  receiveMore,
  receiveRecheck,
  showQuery,
  UNCHANGED,
  watchAnswer,
  watchPhrase,
  type Feed,
  type LiveMessage,
} from "./live";
import { findText, normalizeWord } from "./text";
import type { Phrase, PhrasePage } from "./types";
import findVectors from "../../tests/vectors/find.json";

interface FindVector {
  find: string;
  minted: string;
  found: boolean;
  note: string;
}

const phrase = (id: string, created: number, word = id.toUpperCase()): Phrase => ({ id, word, name: `by ${id}`, created });
/** Phrases "p{created}" newest first, as the host orders them. */
const run = (...created: number[]) => created.map((at) => phrase(`p${at}`, at));

function feed(phrases: Phrase[], options: { next?: string | null; prev?: string | null; query?: string; version?: number } = {}): Feed {
  return initialFeed({
    version: options.version ?? 10,
    count: 500,
    phrases,
    query: options.query ?? "",
    next: options.next === undefined ? "more" : options.next,
    prev: options.prev ?? null,
  });
}

function page(phrases: Phrase[], next: string | null, version = 10, count = 500): PhrasePage {
  return { version, count, phrases, next, prev: null };
}

type Changes = Extract<LiveMessage, { type: "changes" }>;
const changes = (from: number, count: number, ...list: Changes["changes"]): Changes => ({
  type: "changes",
  from,
  version: from + 1,
  count,
  changes: list,
});

function applied(start: Feed, message: LiveMessage): Feed {
  const next = applyMessage(start, message);
  if (next === RESYNC) throw new Error("unexpected resync");
  return next;
}

const ids = (f: Feed) => f.list.phrases.map((p) => p.id);

describe("the live socket on a paged list", () => {
  it("puts a new phrase at the top and takes the count from the message", () => {
    const next = applied(feed(run(9, 8, 7)), changes(10, 501, { op: "upsert", phrase: phrase("p12", 12) }));
    expect(ids(next)).toEqual(["p12", "p9", "p8", "p7"]);
    expect(next.count).toBe(501);
    expect(next.version).toBe(11);
  });

  it("keeps an edited phrase in its place and drops a removed one", () => {
    const next = applied(
      feed(run(9, 8, 7)),
      changes(10, 499, { op: "upsert", phrase: phrase("p8", 8, "EDITED") }, { op: "remove", id: "p9" }, { op: "remove", id: "gone" }),
    );
    expect(next.list.phrases).toEqual([phrase("p8", 8, "EDITED"), phrase("p7", 7)]);
    expect(next.count).toBe(499);
  });

  it("leaves a phrase below the last loaded one to its page, until the end is loaded", () => {
    const older = changes(10, 501, { op: "upsert", phrase: phrase("p3", 3) });
    expect(ids(applied(feed(run(9, 8, 7)), older))).toEqual(["p9", "p8", "p7"]);
    expect(ids(applied(feed(run(9, 8, 7), { next: null }), older))).toEqual(["p9", "p8", "p7", "p3"]);
  });

  it("takes a loaded phrase moved below the loaded stretch out of it, for its page to bring in its place", () => {
    // Its time written by hand: p9 is now the oldest of all.
    const moved = changes(10, 500, { op: "upsert", phrase: phrase("p9", 1) });
    expect(ids(applied(feed(run(9, 8, 7)), moved))).toEqual(["p8", "p7"]);
    expect(ids(applied(feed(run(9, 8, 7), { next: "7-p7" }), moved))).toEqual(["p8", "p7"]);
    // With the end loaded, it goes to its place there.
    expect(ids(applied(feed(run(9, 8, 7), { next: null }), moved))).toEqual(["p8", "p7", "p9"]);
  });

  it("takes a loaded phrase of a later page moved above the page out of it, and keeps one edited in place", () => {
    const start = feed(run(9, 8, 7), { prev: "10-x" });
    expect(ids(applied(start, changes(10, 500, { op: "upsert", phrase: phrase("p8", 20) })))).toEqual(["p9", "p7"]);
    expect(applied(start, changes(10, 500, { op: "upsert", phrase: phrase("p9", 9, "EDITED") })).list.phrases[0]).toEqual(phrase("p9", 9, "EDITED"));
    // Moved within the page, it takes its new place.
    expect(ids(applied(start, changes(10, 500, { op: "upsert", phrase: phrase("p9", 7.5) })))).toEqual(["p8", "p9", "p7"]);
  });

  it("keeps the phrases minted in the same burst that removed every one loaded, and leaves older ones to the next page", () => {
    // The loaded stretch ended at p7, where the next page starts.
    const start = feed(run(9, 8, 7), { next: "7-p7" });
    const burst = changes(
      10,
      497,
      { op: "remove", id: "p9" },
      { op: "remove", id: "p8" },
      { op: "remove", id: "p7" },
      { op: "upsert", phrase: phrase("p12", 12) },
      { op: "upsert", phrase: phrase("p11", 11) },
      { op: "upsert", phrase: phrase("p3", 3) },
    );
    const next = applied(start, burst);
    expect(ids(next)).toEqual(["p12", "p11"]);
    expect(next.list.next).toBe("7-p7");
    // A cursor the client cannot read leaves them to the pages, as before.
    expect(ids(applied(feed(run(9, 8, 7), { next: "odd" }), burst))).toEqual([]);
  });

  it("orders phrases of the same moment by id in code-point order", () => {
    // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit.
    const astral = phrase("\u{1F600}", 5);
    const wide = phrase("\uFF5E", 5);
    const next = applied(feed(run(9, 5), { next: null }), changes(10, 3, { op: "upsert", phrase: astral }, { op: "upsert", phrase: wide }));
    expect(ids(next)).toEqual(["p9", "p5", "\uFF5E", "\u{1F600}"]);
  });

  it("shows no new phrase at the top of a list that starts at a later page, but edits in it", () => {
    const start = feed(run(9, 8), { prev: "10-x" });
    const next = applied(start, changes(10, 3, { op: "upsert", phrase: phrase("p12", 12) }, { op: "upsert", phrase: phrase("p9", 9, "EDITED") }));
    expect(next.list.phrases).toEqual([phrase("p9", 9, "EDITED"), phrase("p8", 8)]);
  });

  it("during a find, shows only matches, and drops a phrase edited out of them", () => {
    const start = feed([phrase("a", 9, "RAWR"), phrase("b", 8, "RAWR!")], { query: "raw", next: null });
    const next = applied(
      start,
      changes(
        10,
        3,
        { op: "upsert", phrase: phrase("c", 12, "BIG RAWR") },
        { op: "upsert", phrase: phrase("d", 13, "BYE") },
        { op: "upsert", phrase: phrase("b", 8, "ROAR") },
      ),
    );
    expect(ids(next)).toEqual(["c", "a"]);
  });

  it("ignores changes it already has and asks to start over when changes skip ahead", () => {
    const start = feed(run(9));
    expect(applyMessage(start, { ...changes(9, 1, { op: "remove", id: "p9" }), version: 10 })).toBe(start);
    expect(applyMessage(start, changes(11, 1))).toBe(RESYNC);
  });

  it("takes a snapshot's first page and keeps the pages loaded below it, so a visitor keeps their place", () => {
    const loaded = receiveMore(feed(run(9, 8, 7), { next: "more" }), "", "more", page(run(6, 5), "older"));
    expect(ids(loaded)).toEqual(["p9", "p8", "p7", "p6", "p5"]);
    // One phrase new on top, p8 gone while the socket was away: the first page says so.
    const next = applied(loaded, { type: "snapshot", version: 40, count: 9, phrases: run(30, 9, 7), next: "7-p7" });
    expect(ids(next)).toEqual(["p30", "p9", "p7", "p6", "p5"]);
    expect(next.list.next).toBe("older");
    expect(next.count).toBe(9);
    expect(next.version).toBe(40);
    // Nothing loaded below it: the first page alone.
    expect(ids(applied(feed(run(9, 8)), { type: "snapshot", version: 41, count: 2, phrases: run(9, 8), next: "8-p8" }))).toEqual(["p9", "p8"]);
  });

  it("asks again for the pages a snapshot kept, and shows what changed in them while the socket could not say", () => {
    const loaded = receiveMore(feed(run(9, 8, 7), { next: "more" }), "", "more", page(run(6, 5, 4), "older"));
    // Another replica: p6 was removed and p5 edited while the socket was away.
    const next = applied(loaded, { type: "snapshot", version: 3 * 2 ** 32, count: 9, phrases: run(9, 8, 7), next: "7-p7" });
    expect(ids(next)).toEqual(["p9", "p8", "p7", "p6", "p5", "p4"]);
    const recheck = next.recheck!;
    expect(recheck.after).toBe("7-p7");
    expect(recheck.through.id).toBe("p4");
    // The socket removes p4 while the pages are on their way; a page past the stretch
    // brings p3, which is not the stretch's.
    const meanwhile = applied(next, changes(3 * 2 ** 32, 8, { op: "remove", id: "p4" }));
    const edited = phrase("p5", 5, "P5 EDITED");
    const pages = [page([edited], "5-p5", 3 * 2 ** 32), page(run(4, 3), "3-p3", 3 * 2 ** 32)];
    const rechecked = receiveRecheck(meanwhile, recheck, pages);
    expect(ids(rechecked)).toEqual(["p9", "p8", "p7", "p5"]);
    expect(rechecked.list.phrases[3]!.word).toBe("P5 EDITED");
    expect(rechecked.list.next).toBe("older");
    expect(rechecked.recheck).toBe(null);
    // Pages that come after another snapshot are of a list gone by.
    const again = applied(next, { type: "snapshot", version: 3 * 2 ** 32 + 7, count: 9, phrases: run(9, 8, 7), next: "7-p7" });
    expect(receiveRecheck(again, recheck, pages)).toBe(again);
    // Nothing kept below the first page: nothing to ask.
    expect(applied(feed(run(9, 8)), { type: "snapshot", version: 41, count: 2, phrases: run(9, 8), next: "8-p8" }).recheck).toBe(null);
  });

  it("asks again for at most RECHECK_MOST of a long stretch, the nearest the top", () => {
    const deep = Array.from({ length: RECHECK_MOST + 100 }, (_, i) => phrase(`d${i}`, 5000 - i));
    const loaded = receiveMore(feed(run(9000), { next: "more" }), "", "more", page(deep, "older"));
    const next = applied(loaded, { type: "snapshot", version: 40, count: 9, phrases: run(9000), next: "9000-p9000" });
    expect(next.recheck!.through.id).toBe(`d${RECHECK_MOST - 1}`);
  });

  it("starts the list over from a snapshot's first page when more than a page came in on top", () => {
    const loaded = receiveMore(feed(run(9, 8), { next: "more" }), "", "more", page(run(7, 6), "older"));
    const next = applied(loaded, { type: "snapshot", version: 40, count: 20, phrases: run(31, 30), next: "30-p30" });
    expect(ids(next)).toEqual(["p31", "p30"]);
    expect(next.list.next).toBe("30-p30");
  });

  it("a later page keeps its stretch of the list through a snapshot, and takes the count", () => {
    const later = feed(run(7, 6), { prev: "8-p8" });
    expect(later.list.fromTop).toBe(false);
    const next = applied(later, { type: "snapshot", version: 40, count: 99, phrases: run(30, 29), next: "29-p29" });
    expect(ids(next)).toEqual(["p7", "p6"]);
    expect(next.count).toBe(99);
    expect(next.version).toBe(40);
  });

  it("during a find, a snapshot keeps the matches shown and asks for them again", () => {
    const finding = feed([phrase("a", 9, "RAWR")], { query: "raw" });
    const next = applied(finding, { type: "snapshot", version: 40, count: 2, phrases: run(30), next: null });
    expect(ids(next)).toEqual(["a"]);
    expect(needsFirstPage(next)).toBe(true);
    expect(next.plain?.phrases.map((p) => p.id)).toEqual(["p30"]);
  });
});

describe("pages and the find box", () => {
  it("appends the next page once, and not after the list has started over", () => {
    const start = feed(run(9, 8), { next: "c1" });
    const more = page([phrase("p8", 8), ...run(7, 6)], "c2");
    const once = receiveMore(start, "", "c1", more);
    expect(ids(once)).toEqual(["p9", "p8", "p7", "p6"]);
    expect(once.list.next).toBe("c2");
    expect(receiveMore(once, "", "c1", more)).toBe(once);
    expect(receiveMore(start, "X", "c1", more)).toBe(start);
  });

  it("takes the count from a page only when it is newer than the one it has", () => {
    const start = feed(run(9), { next: "c1", version: 10 });
    expect(receiveMore(start, "", "c1", page(run(8), null, 12, 600)).count).toBe(600);
    expect(receiveMore(start, "", "c1", page(run(8), null, 9, 400)).count).toBe(500);
  });

  it("keeps following the socket's count when a page comes from another replica", () => {
    // Each replica counts from its own epoch: 3 · 2^32 is past any version of the one at 2^32.
    const [here, there] = [2 ** 32 + 10, 3 * 2 ** 32 + 5];
    const start = feed(run(9), { next: "c1", version: here });
    const scrolled = receiveMore(start, "", "c1", page(run(8), null, there, 600));
    expect(ids(scrolled)).toEqual(["p9", "p8"]);
    expect(scrolled.count).toBe(500);
    const minted = applied(scrolled, changes(here, 501, { op: "upsert", phrase: phrase("p10", 10) }));
    expect(minted.count).toBe(501);
    // And the other way round: a page from a replica of a lower epoch.
    const lower = receiveMore(feed(run(9), { next: "c1", version: there }), "", "c1", page(run(8), null, here, 400));
    expect(lower.count).toBe(500);
  });

  it("leaves out what the socket removed of a page from another replica, which may not have seen it", () => {
    const [here, there] = [2 ** 32 + 10, 3 * 2 ** 32 + 5];
    const start = applied(feed(run(9), { next: "c1", version: here }), changes(here, 499, { op: "remove", id: "p7" }));
    expect(ids(receiveMore(start, "", "c1", page(run(8, 7, 6), null, there)))).toEqual(["p9", "p8", "p6"]);
    const below = applied(feed(run(9), { next: "c1", version: there }), changes(there, 499, { op: "remove", id: "p7" }));
    expect(ids(receiveMore(below, "", "c1", page(run(8, 7, 6), null, here)))).toEqual(["p9", "p8", "p6"]);
  });

  it("shows a find's first page once it comes, keeps the list, and an empty box restores it at once", () => {
    const start = feed(run(9, 8));
    const asking = showQuery(start, "RAW");
    expect(needsFirstPage(asking)).toBe(true);
    expect(ids(asking)).toEqual(["p9", "p8"]);
    const found = receiveFirst(asking, "RAW", page([phrase("r", 4, "RAWR")], null));
    expect(ids(found)).toEqual(["r"]);
    expect(found.list.query).toBe("RAW");
    const back = showQuery(found, "");
    expect(back.list).toBe(start.list);
    expect(needsFirstPage(back)).toBe(false);
  });

  it("drops a find's page once the box has moved on", () => {
    const moved = showQuery(showQuery(feed(run(9)), "RA"), "RAW");
    expect(receiveFirst(moved, "RA", page([phrase("r", 4, "RAWR")], null))).toBe(moved);
  });

  it("leaves out of a page that was on its way what the socket removed meanwhile", () => {
    // The page was made at version 10; p6 and p4 went at 11, p7 at 12 and came back.
    let start = feed(run(9, 8), { next: "c1", version: 10 });
    start = applied(start, changes(10, 499, { op: "remove", id: "p6" }, { op: "remove", id: "p4" }));
    start = applied(start, changes(11, 498, { op: "remove", id: "p7" }));
    start = applied(start, changes(12, 499, { op: "upsert", phrase: phrase("p7", 7) }));
    const late = receiveMore(start, "", "c1", page(run(7, 6, 5, 4), "c2", 10));
    expect(ids(late)).toEqual(["p9", "p8", "p7", "p5"]);
    // A page made after the removal holds what it holds, and p7, minted again after it, too.
    expect(ids(receiveMore(start, "", "c1", page(run(6, 5), "c2", 12)))).toEqual(["p9", "p8", "p7", "p6", "p5"]);
    // A find's first page too (with p7, back since).
    const asking = showQuery(start, "P");
    expect(ids(receiveFirst(asking, "P", page(run(6, 5), null, 10)))).toEqual(["p7", "p5"]);
  });

  it("a find's page on its way misses what the socket minted or edited meanwhile: the socket's word stands", () => {
    // The find for GIRAFFE was asked at version 10; at 11 GIRAFFE RACE was minted, an
    // older phrase edited into a match and a match edited out of it.
    const start = feed(run(9, 8), { version: 10 });
    const asking = showQuery(start, "GIRAFFE");
    const meanwhile = applied(
      asking,
      changes(10, 501, { op: "upsert", phrase: phrase("new", 20, "GIRAFFE RACE") }, { op: "upsert", phrase: phrase("p3", 3, "GIRAFFE TOO") }, { op: "upsert", phrase: phrase("p2", 2, "NO LONGER") }),
    );
    const found = receiveFirst(meanwhile, "GIRAFFE", page([phrase("p5", 5, "GIRAFFE"), phrase("p2", 2, "GIRAFFE TALL")], null, 10));
    expect(found.list.phrases.map((p) => p.word)).toEqual(["GIRAFFE RACE", "GIRAFFE", "GIRAFFE TOO"]);
    // A page made after them has them already, and a later word of its own stands.
    const later = receiveFirst(meanwhile, "GIRAFFE", page([phrase("new", 20, "GIRAFFE RACE!"), phrase("p5", 5, "GIRAFFE")], null, 12));
    expect(later.list.phrases.map((p) => p.word)).toEqual(["GIRAFFE RACE!", "GIRAFFE"]);
  });

  it("a following page on its way shows a phrase as the socket last told it", () => {
    const start = applied(feed(run(9, 8), { next: "c1", version: 10 }), changes(10, 500, { op: "upsert", phrase: phrase("p6", 6, "EDITED") }));
    const more = receiveMore(start, "", "c1", page(run(7, 6, 5), "c2", 10));
    expect(more.list.phrases.map((p) => p.word)).toEqual(["P9", "P8", "P7", "EDITED", "P5"]);
    // From another replica, whose version says nothing of the socket's: the socket's word too.
    const there = receiveMore(start, "", "c1", page(run(7, 6, 5), "c2", 3 * 2 ** 32 + 50));
    expect(there.list.phrases.map((p) => p.word)).toEqual(["P9", "P8", "P7", "EDITED", "P5"]);
    // Below where the list has loaded, a change waits for its page.
    const edge = applied(feed(run(9, 8), { next: "c1", version: 10 }), changes(10, 500, { op: "upsert", phrase: phrase("p1", 1, "FAR") }));
    expect(ids(receiveMore(edge, "", "c1", page(run(7, 6), "c2", 10)))).toEqual(["p9", "p8", "p7", "p6"]);
  });

  it("forgets a minted phrase once the socket removes it, and remembers a bounded number, the newest", () => {
    let start = applied(feed(run(9), { next: "c1", version: 10 }), changes(10, 501, { op: "upsert", phrase: phrase("p7", 7, "GONE SOON") }));
    start = applied(start, changes(11, 500, { op: "remove", id: "p7" }));
    expect(start.upserted.has("p7")).toBe(false);
    expect(ids(receiveMore(start, "", "c1", page(run(8, 7), null, 10)))).toEqual(["p9", "p8"]);
    const mints = Array.from({ length: 1200 }, (_, i) => ({ op: "upsert" as const, phrase: phrase(`new${i}`, 100 + i) }));
    start = applied(start, changes(12, 1700, ...mints));
    expect(start.upserted.size).toBe(1000);
    expect(start.upserted.has("new1199")).toBe(true);
    expect(start.upserted.has("new199")).toBe(false);
  });

  it("remembers a bounded number of removals, the newest", () => {
    let start = feed(run(9), { next: "c1", version: 10 });
    const removals = Array.from({ length: 1200 }, (_, i) => ({ op: "remove" as const, id: `gone${i}` }));
    start = applied(start, changes(10, 500, ...removals));
    expect(start.removed.size).toBe(1000);
    expect(start.removed.has("gone1199")).toBe(true);
    expect(start.removed.has("gone199")).toBe(false);
  });

  it("asks for the newest-first list when the page began with a find", () => {
    const finding = feed([phrase("a", 9, "RAWR")], { query: "raw" });
    expect(finding.list.query).toBe("RAW");
    const emptied = showQuery(finding, "");
    expect(needsFirstPage(emptied)).toBe(true);
    expect(ids(receiveFirst(emptied, "", page(run(9, 8), "c")))).toEqual(["p9", "p8"]);
  });
});

describe("shared find vectors", () => {
  // The host's find decides the pages; this one, the live changes sorted into them.
  it.each(findVectors as FindVector[])("$note", (vector) => {
    expect(matches(findText(vector.find), normalizeWord(vector.minted))).toBe(vector.found);
  });
});

describe("parseMessage", () => {
  it("accepts the two message types", () => {
    expect(
      parseMessage('{"type":"snapshot","version":2,"count":9,"phrases":[{"id":"a","word":"A","name":"n","created":4}],"next":"4-a"}'),
    ).toEqual({ type: "snapshot", version: 2, count: 9, phrases: [{ id: "a", word: "A", name: "n", created: 4 }], next: "4-a" });
    expect(parseMessage('{"type":"changes","from":1,"version":2,"count":8,"changes":[{"op":"remove","id":"a"}]}')).toEqual({
      type: "changes",
      from: 1,
      version: 2,
      count: 8,
      changes: [{ op: "remove", id: "a" }],
    });
  });

  it.each([
    ["not JSON", "{"],
    ["an unknown type", '{"type":"hello","version":1,"count":1}'],
    ["a fractional version", '{"type":"snapshot","version":1.5,"count":0,"phrases":[],"next":null}'],
    ["a phrase without a name", '{"type":"snapshot","version":1,"count":1,"phrases":[{"id":"a","word":"A","created":1}],"next":null}'],
    ["a phrase without its place", '{"type":"snapshot","version":1,"count":1,"phrases":[{"id":"a","word":"A","name":"n"}],"next":null}'],
    ["a snapshot without next", '{"type":"snapshot","version":1,"count":0,"phrases":[]}'],
    ["changes without a count", '{"type":"changes","from":1,"version":2,"changes":[]}'],
    ["an unknown op", '{"type":"changes","from":1,"version":2,"count":1,"changes":[{"op":"mint","id":"a"}]}'],
    ["an array", "[]"],
  ])("rejects %s", (_, text) => {
    expect(parseMessage(text)).toBeNull();
  });
});

describe("parsePage", () => {
  it("accepts a page and refuses what is not one", () => {
    const body = { version: 3, count: 1, phrases: [phrase("a", 1)], next: null, prev: "2-b" };
    expect(parsePage(body)).toEqual(body);
    expect(parsePage({ ...body, next: 4 })).toBeNull();
    expect(parsePage({ ...body, phrases: [{ id: "a" }] })).toBeNull();
    expect(parsePage(null)).toBeNull();
  });
});

describe("compareCodePoints", () => {
  it("orders by code point, prefixes first", () => {
    expect(compareCodePoints("a", "b")).toBeLessThan(0);
    expect(compareCodePoints("ab", "a")).toBeGreaterThan(0);
    expect(compareCodePoints("x", "x")).toBe(0);
    expect(compareCodePoints("\uFF5E", "\u{1F600}")).toBeLessThan(0);
    expect("\uFF5E" < "\u{1F600}").toBe(false);
  });
});

describe("backoffDelay", () => {
  it("waits up to the doubled step, capped", () => {
    expect(backoffDelay(0, () => 0.999)).toBeLessThan(BACKOFF_START_MS);
    expect(backoffDelay(3, () => 0.5)).toBe(2000);
    expect(backoffDelay(40, () => 0.999)).toBeLessThan(BACKOFF_CAP_MS);
    expect(backoffDelay(40, () => 0.999)).toBeGreaterThan(BACKOFF_CAP_MS - 100);
    expect(backoffDelay(5, () => 0)).toBe(0);
  });
});

describe("liveUrl", () => {
  it("follows the page's scheme and host", () => {
    expect(liveUrl({ protocol: "https:", host: "dinos.example" }, 12)).toBe("wss://dinos.example/api/phrases/live?since=12");
    expect(liveUrl({ protocol: "http:", host: "127.0.0.1:8080" }, 0)).toBe("ws://127.0.0.1:8080/api/phrases/live?since=0");
  });
});

describe("watchPhrase", () => {
  const mine: Phrase = { id: "a", word: "RAWR", name: "Rex", created: 5 };
  const other: Phrase = { id: "b", word: "BYE", name: "Ann", created: 6 };
  const again: Phrase = { id: "c", word: "RAWR", name: "Bo", created: 7 };

  it("says when the phrase is removed, minted again elsewhere, and back", () => {
    let watched = watchPhrase(UNCHANGED, mine, [{ op: "upsert", phrase: other }, { op: "remove", id: "b" }]);
    expect(watched).toEqual(UNCHANGED);
    watched = watchPhrase(watched, mine, [{ op: "remove", id: "a" }]);
    expect(watched).toEqual({ removed: true, again: null, edited: null });
    watched = watchPhrase(watched, mine, [{ op: "upsert", phrase: again }]);
    expect(watched).toEqual({ removed: true, again, edited: null });
    expect(watchPhrase(watched, mine, [{ op: "remove", id: "c" }])).toEqual({ removed: true, again: null, edited: null });
    expect(watchPhrase(watched, mine, [{ op: "upsert", phrase: mine }])).toEqual(UNCHANGED);
  });

  it("says what the phrase reads now when its words or name are changed, and forgets it when changed back", () => {
    const renamed = { ...mine, word: "RAWR AGAIN" };
    let watched = watchPhrase(UNCHANGED, mine, [{ op: "upsert", phrase: renamed }]);
    expect(watched).toEqual({ removed: false, again: null, edited: renamed });
    watched = watchPhrase(watched, mine, [{ op: "upsert", phrase: { ...mine, name: "Rexy" } }]);
    expect(watched.edited?.name).toBe("Rexy");
    expect(watchPhrase(watched, mine, [{ op: "upsert", phrase: mine }])).toEqual(UNCHANGED);
    expect(watchPhrase(watched, mine, [{ op: "remove", id: "a" }]).removed).toBe(true);
  });

  it("takes what the host's page says once the feed could not say what changed", () => {
    const mine = phrase("m", 5, "MINE");
    const edited = { ...mine, name: "someone else" };
    expect(watchAnswer(UNCHANGED, mine, 410, null)).toEqual({ ...UNCHANGED, removed: true });
    expect(watchAnswer(UNCHANGED, mine, 404, null)?.removed).toBe(true);
    expect(watchAnswer(UNCHANGED, mine, 200, edited)).toEqual({ ...UNCHANGED, edited });
    expect(watchAnswer({ ...UNCHANGED, edited }, mine, 200, mine)).toEqual(UNCHANGED);
    // Gone, with whoever holds its words now, as the host's check says: minted again
    // while the feed was away, or the phrase that took them removed meanwhile.
    const other = phrase("o", 9, "MINE");
    expect(watchAnswer(UNCHANGED, mine, 410, null, other)).toEqual({ ...UNCHANGED, removed: true, again: other });
    expect(watchAnswer({ ...UNCHANGED, removed: true, again: other }, mine, 410, null, null)).toEqual({ ...UNCHANGED, removed: true });
    expect(watchAnswer({ ...UNCHANGED, removed: true, again: other }, mine, 404, null)?.again).toBe(other);
    // A page that could not be read, or an error, says nothing.
    expect(watchAnswer(UNCHANGED, mine, 200, null)).toBe(null);
    expect(watchAnswer(UNCHANGED, mine, 503, null)).toBe(null);
  });

  it("ignores the same words while the phrase is still minted", () => {
    expect(watchPhrase(UNCHANGED, mine, [{ op: "upsert", phrase: again }])).toBe(UNCHANGED);
  });
});
