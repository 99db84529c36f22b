import { describe, expect, it } from "vitest";
import {
  BACKOFF_CAP_MS,
  BACKOFF_START_MS,
  RESYNC,
  apply,
  backoffDelay,
  compareCodePoints,
  liveUrl,
  parseMessage,
  type LiveState,
} from "./live";
import type { Phrase } from "./types";

const phrase = (id: string, word = id.toUpperCase()): Phrase => ({ id, word, name: `by ${id}` });
const state = (version: number, ...ids: string[]): LiveState => ({ version, phrases: ids.map((id) => phrase(id)) });
const ids = (result: LiveState | typeof RESYNC) => (result === RESYNC ? RESYNC : result.phrases.map((p) => p.id));

describe("apply", () => {
  it("replaces the list with a snapshot, sorted and without duplicate ids", () => {
    const next = apply(state(3, "a"), {
      type: "snapshot",
      version: 9,
      phrases: [phrase("c"), phrase("b"), phrase("c", "NEWER")],
    });
    expect(next).toEqual({ version: 9, phrases: [phrase("b"), phrase("c", "NEWER")] });
  });

  it("applies changes that start at the current version", () => {
    const next = apply(state(4, "a", "c"), {
      type: "changes",
      from: 4,
      version: 6,
      changes: [
        { op: "upsert", phrase: phrase("b") },
        { op: "upsert", phrase: phrase("a", "EDITED") },
        { op: "remove", id: "c" },
        { op: "remove", id: "missing" },
      ],
    });
    expect(next).toEqual({ version: 6, phrases: [phrase("a", "EDITED"), phrase("b")] });
  });

  it("ignores changes it already has", () => {
    const current = state(6, "a");
    expect(apply(current, { type: "changes", from: 5, version: 6, changes: [{ op: "remove", id: "a" }] })).toBe(current);
    expect(apply(current, { type: "changes", from: 2, version: 3, changes: [] })).toBe(current);
  });

  it("asks for a resync when changes skip ahead", () => {
    expect(apply(state(6, "a"), { type: "changes", from: 7, version: 8, changes: [] })).toBe(RESYNC);
  });

  it("keeps code-point order where UTF-16 order differs", () => {
    // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit.
    const astral = "\u{1F600}";
    const wide = "\uFF5E";
    const next = apply(state(1, "a"), {
      type: "changes",
      from: 1,
      version: 3,
      changes: [
        { op: "upsert", phrase: phrase(astral) },
        { op: "upsert", phrase: phrase(wide) },
      ],
    });
    expect(ids(next)).toEqual(["a", wide, astral]);
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

describe("parseMessage", () => {
  it("accepts the two message types", () => {
    expect(parseMessage('{"type":"snapshot","version":2,"phrases":[{"id":"a","word":"A","name":"n"}]}')).toEqual({
      type: "snapshot",
      version: 2,
      phrases: [{ id: "a", word: "A", name: "n" }],
    });
    expect(
      parseMessage('{"type":"changes","from":1,"version":2,"changes":[{"op":"remove","id":"a"}]}'),
    ).toEqual({ type: "changes", from: 1, version: 2, changes: [{ op: "remove", id: "a" }] });
  });

  it.each([
    ["not JSON", "{"],
    ["an unknown type", '{"type":"hello"}'],
    ["a fractional version", '{"type":"snapshot","version":1.5,"phrases":[]}'],
    ["a phrase without a name", '{"type":"snapshot","version":1,"phrases":[{"id":"a","word":"A"}]}'],
    ["an unknown op", '{"type":"changes","from":1,"version":2,"changes":[{"op":"mint","id":"a"}]}'],
    ["an array", "[]"],
  ])("rejects %s", (_, text) => {
    expect(parseMessage(text)).toBeNull();
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
