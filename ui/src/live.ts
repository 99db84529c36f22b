/**
 * The phrase list as the page holds it, a page at a time, kept free of
 * sockets, fetches and timers so it can be tested as plain data:
 * `parseMessage` and `parsePage` check what the host sent, `applyMessage`
 * folds the live socket into the list, `showQuery`, `receiveFirst` and
 * `receiveMore` follow the find box and the pages as they arrive.
 */
import { isRecord } from "./guards";
import { normalizeWord } from "./text";
import type { Phrase, PhrasePage, WordsProps } from "./types";

/** Some of the list (or of a find's matches), newest first, without gaps. */
export interface PagedList {
  /** The normalised find text; "" for the newest-first list. */
  query: string;
  phrases: readonly Phrase[];
  /** Cursor of the page after the last loaded phrase; null once the end is loaded. */
  next: string | null;
  /** False when the list starts at a later page (`/words?after=…`): newer phrases are not ours to show. */
  fromTop: boolean;
}

export interface Feed {
  /** The list version the socket has brought the page to. */
  version: number;
  count: number;
  /** The version `count` was taken at: pages and the socket both carry one. */
  countVersion: number;
  /** What the grid shows. */
  list: PagedList;
  /** The newest-first list, kept while a find shows, so an empty box restores it at once. */
  plain: PagedList | null;
  /** The find text the box asks for; the grid follows once its first page is in. */
  want: string;
  /** A snapshot came while a find showed: its matches are asked for again. */
  stale: boolean;
  /**
   * The phrases the socket removed lately, with the version each went at: a page asked
   * for before then may still hold one (the newest `REMEMBERED_CHANGES`).
   */
  removed: ReadonlyMap<string, number>;
  /**
   * Likewise the phrases it minted or edited lately, as it last told them and when: a page
   * asked for before then holds the old words or lacks the phrase, and the visitor would
   * be told a taken word is free (the newest `REMEMBERED_CHANGES`).
   */
  upserted: ReadonlyMap<string, Upserted>;
  /**
   * The stretch a snapshot kept below its first page, as it was before: the socket can no
   * longer say what changed in it (another replica, or a restarted host), so it is asked
   * for again (`receiveRecheck`).
   */
  recheck: Recheck | null;
}

/** A phrase as the socket last told it, and the version it came at. */
export interface Upserted {
  phrase: Phrase;
  version: number;
}

/** The loaded phrases after `below` through `through`, to be asked for from `after`. */
export interface Recheck {
  after: string;
  below: Phrase;
  through: Phrase;
}

/** The most of a kept stretch asked for again: ten pages of the API's largest. */
export const RECHECK_MOST = 2000;

/** Changes remembered for pages on their way: more than a page can meet in its flight. */
const REMEMBERED_CHANGES = 1000;

/** The feed as the page was rendered: one page, at the host's version. */
export function initialFeed(props: Pick<WordsProps, "version" | "count" | "phrases" | "query" | "next" | "prev">): Feed {
  const query = normalizeWord(props.query);
  const list: PagedList = { query, phrases: props.phrases, next: props.next, fromTop: props.prev === null };
  return {
    version: props.version,
    count: props.count,
    countVersion: props.version,
    list,
    plain: null,
    want: query,
    stale: false,
    removed: new Map(),
    upserted: new Map(),
    recheck: null,
  };
}

export type Change = { op: "upsert"; phrase: Phrase } | { op: "remove"; id: string };

export type LiveMessage =
  | { type: "snapshot"; version: number; count: number; phrases: Phrase[]; next: string | null }
  | { type: "changes"; from: number; version: number; count: number; changes: Change[] };

/** Returned by `applyMessage` when changes were missed and the socket must start over. */
export const RESYNC = "resync";

export function applyMessage(feed: Feed, message: LiveMessage): Feed | typeof RESYNC {
  if (message.type === "snapshot") {
    // The host could not say what changed (it restarted, or too much did): the
    // newest-first list takes this first page, and a find asks again.
    const first: PagedList = { query: "", phrases: dedupeById(message.phrases), next: message.next, fromTop: true };
    // Pages asked for before it are of another list: `receiveMore` drops them by cursor.
    const base = {
      ...feed,
      version: message.version,
      count: message.count,
      countVersion: message.version,
      removed: new Map<string, number>(),
      upserted: new Map<string, Upserted>(),
      recheck: null,
    };
    // A later page (`?after=`) may come from the host's cache, made at an older version
    // than the socket remembers: the host keeps it only while no change fell in it, so
    // the stretch it shows stands, and the first page is not what the visitor asked for.
    if (feed.list.query === "" && !feed.list.fromTop) return base;
    if (feed.list.query === "") {
      const list = keepBelow(first, feed.list);
      return { ...base, list, plain: null, recheck: recheckOf(first, list) };
    }
    return { ...base, plain: keepBelow(first, feed.plain), stale: true };
  }
  if (message.version <= feed.version) return feed;
  if (message.from !== feed.version) return RESYNC;
  let list = feed.list;
  let plain = feed.plain;
  let removed: Map<string, number> | null = null;
  const upserted = new Map(feed.upserted);
  for (const change of message.changes) {
    list = applyChange(list, change);
    if (plain !== null) plain = applyChange(plain, change);
    // Each id noted once, as it last came (in the order they came): a removal forgets
    // an upsert of the id, an upsert forgives a removal.
    const id = change.op === "remove" ? change.id : change.phrase.id;
    upserted.delete(id);
    if (change.op === "upsert") upserted.set(id, { phrase: change.phrase, version: message.version });
    if (change.op === "remove" || (removed ?? feed.removed).has(id)) {
      removed ??= new Map(feed.removed);
      removed.delete(id);
      if (change.op === "remove") removed.set(id, message.version);
    }
  }
  if (removed !== null) forgetOldest(removed);
  forgetOldest(upserted);
  const count = message.version >= feed.countVersion ? message.count : feed.count;
  return {
    ...feed,
    version: message.version,
    count,
    countVersion: Math.max(feed.countVersion, message.version),
    list,
    plain,
    removed: removed ?? feed.removed,
    upserted,
  };
}

function forgetOldest(remembered: Map<string, unknown>): void {
  for (const oldest of remembered.keys()) {
    if (remembered.size <= REMEMBERED_CHANGES) break;
    remembered.delete(oldest);
  }
}

/**
 * The snapshot's `first` page with the pages `loaded` holds below it, so a visitor deep in
 * the list keeps their place when the host restarts: when the first page reaches into
 * what was loaded (more new phrases than a page would leave a gap, and the list starts
 * over). Those pages are as they were; the socket's changes keep them from here on.
 */
function keepBelow(first: PagedList, loaded: PagedList | null): PagedList {
  const last = first.phrases[first.phrases.length - 1];
  const top = loaded?.phrases[0];
  if (loaded === null || first.next === null || last === undefined || top === undefined) return first;
  if (comparePosition(top, last) > 0) return first;
  const shown = new Set(first.phrases.map((phrase) => phrase.id));
  const below = loaded.phrases.filter((phrase) => comparePosition(phrase, last) > 0 && !shown.has(phrase.id));
  if (below.length === 0) return first;
  return { ...first, phrases: [...first.phrases, ...below], next: loaded.next };
}

/** What of `list` lies below `first`, the snapshot's first page, up to `RECHECK_MOST`. */
function recheckOf(first: PagedList, list: PagedList): Recheck | null {
  const below = first.phrases[first.phrases.length - 1];
  const kept = list.phrases.length - first.phrases.length;
  if (below === undefined || first.next === null || kept <= 0) return null;
  const through = list.phrases[first.phrases.length - 1 + Math.min(kept, RECHECK_MOST)]!;
  return { after: first.next, below, through };
}

/**
 * The stretch `recheck` names as `pages` (asked for from its `after` on, newest first)
 * hold it now: a phrase removed or edited while the socket could not say is gone or
 * shown as it is. Dropped once another snapshot has come.
 */
export function receiveRecheck(feed: Feed, recheck: Recheck, pages: readonly PhrasePage[]): Feed {
  if (feed.recheck !== recheck) return feed;
  if (feed.list.query !== "") return { ...feed, recheck: null };
  const inStretch = (phrase: Phrase) => comparePosition(phrase, recheck.below) > 0 && comparePosition(phrase, recheck.through) <= 0;
  const stretch = dedupeById(pages.flatMap((page) => current(feed, page)).filter(inStretch)).sort(comparePosition);
  const { phrases } = feed.list;
  const above = phrases.filter((phrase) => comparePosition(phrase, recheck.below) <= 0);
  const below = phrases.filter((phrase) => comparePosition(phrase, recheck.through) > 0);
  const oldest = Math.min(...pages.map((page) => page.version));
  const list = since(feed, { ...feed.list, phrases: [...above, ...stretch, ...below] }, oldest);
  return { ...feed, recheck: null, list };
}

/** The box now asks for `query` (normalised): an empty one restores the kept list at once. */
export function showQuery(feed: Feed, query: string): Feed {
  if (query === feed.want) return feed;
  if (query === "" && feed.plain !== null) return { ...feed, want: "", list: feed.plain, plain: null, stale: false };
  return { ...feed, want: query };
}

/** Whether the grid waits for the first page of what the box asks. */
export function needsFirstPage(feed: Feed): boolean {
  return feed.want !== feed.list.query || feed.stale;
}

/** The first page of `query`'s list, fetched from the top; dropped if the box has moved on. */
export function receiveFirst(feed: Feed, query: string, page: PhrasePage): Feed {
  if (query !== feed.want) return feed;
  const list = since(feed, { query, phrases: dedupeById(current(feed, page)), next: page.next, fromTop: true }, page.version);
  const plain = query === "" ? null : feed.list.query === "" ? feed.list : feed.plain;
  return counted({ ...feed, list, plain, stale: false }, page);
}

/** A following page, asked for with `after`; dropped unless the list still ends there. */
export function receiveMore(feed: Feed, query: string, after: string, page: PhrasePage): Feed {
  const { list } = feed;
  if (list.query !== query || list.next !== after || feed.stale) return feed;
  const held = new Set(list.phrases.map((phrase) => phrase.id));
  const added = current(feed, page).filter((phrase) => !held.has(phrase.id));
  const longer = since(feed, { ...list, phrases: [...list.phrases, ...added], next: page.next }, page.version);
  return counted({ ...feed, list: longer }, page);
}

/**
 * Whether `word` (stored normalised) is a match of the normalised find text, as the host
 * has it: one that starts or ends inside a flag is none (`🇺🇸` is not in `🇦🇺🇸🇬`,
 * nor `🏴` in `🏴󠁧󠁢󠁳󠁣󠁴󠁿`).
 */
export function matches(query: string, word: string): boolean {
  if (query === "") return true;
  for (let at = word.indexOf(query); at !== -1; at = word.indexOf(query, at + 1)) {
    if (!splitsFlag(word, at) && !splitsFlag(word, at + query.length)) return true;
  }
  return false;
}

/**
 * Whether `at` falls inside a flag: before a tag character, or between two regional
 * indicators of a pair (pairs read from the start of their run).
 */
function splitsFlag(text: string, at: number): boolean {
  const point = text.codePointAt(at);
  if (point !== undefined && point >= 0xe0020 && point <= 0xe007f) return true;
  if (!isRegional(text, at)) return false;
  let before = 0;
  while (at - 2 * (before + 1) >= 0 && isRegional(text, at - 2 * (before + 1))) before++;
  return before % 2 === 1;
}

/** A regional indicator (U+1F1E6..U+1F1FF) starts at code unit `at`. */
function isRegional(text: string, at: number): boolean {
  const point = text.codePointAt(at);
  return point !== undefined && point >= 0x1f1e6 && point <= 0x1f1ff;
}

/** Newest first (`created` descending), then `id` in code-point order: the host's order. */
export function comparePosition(a: Phrase, b: Phrase): number {
  if (a.created !== b.created) return b.created - a.created;
  return compareCodePoints(a.id, b.id);
}

/** The message, or null when `text` is not one this client understands. */
export function parseMessage(text: string): LiveMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || !isVersion(value.version) || !isVersion(value.count)) return null;
  if (value.type === "snapshot") {
    if (!isPhraseArray(value.phrases) || !isCursor(value.next)) return null;
    return { type: "snapshot", version: value.version, count: value.count, phrases: value.phrases, next: value.next };
  }
  if (value.type === "changes") {
    if (!isVersion(value.from) || !Array.isArray(value.changes)) return null;
    if (!value.changes.every(isChange)) return null;
    return { type: "changes", from: value.from, version: value.version, count: value.count, changes: value.changes };
  }
  return null;
}

/** A page of `GET /api/phrases`, or null when the body is not one. */
export function parsePage(value: unknown): PhrasePage | null {
  if (!isRecord(value) || !isVersion(value.version) || !isVersion(value.count)) return null;
  if (!isPhraseArray(value.phrases) || !isCursor(value.next) || !isCursor(value.prev)) return null;
  return { version: value.version, count: value.count, phrases: value.phrases, next: value.next, prev: value.prev };
}

export const BACKOFF_START_MS = 500;
export const BACKOFF_CAP_MS = 30_000;

/**
 * Full jitter: a uniform wait up to the capped exponential step, so clients
 * dropped together by a restart do not come back together.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}

export function liveUrl(location: { protocol: string; host: string }, since: number): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/api/phrases/live?since=${since}`;
}

/** Orders strings by Unicode code point, which UTF-16 `<` does not above U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const difference = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
}

/**
 * An upsert shows only where the list has loaded: above its last phrase (or
 * anywhere once the end is in) and, for a list that starts at a later page,
 * below its first. Elsewhere it comes with a page, in its place.
 */
function applyChange(list: PagedList, change: Change): PagedList {
  const at = list.phrases.findIndex((phrase) => phrase.id === (change.op === "upsert" ? change.phrase.id : change.id));
  const rest = at < 0 ? list.phrases : [...list.phrases.slice(0, at), ...list.phrases.slice(at + 1)];
  if (change.op === "remove" || !matches(list.query, change.phrase.word)) {
    return at < 0 ? list : { ...list, phrases: rest };
  }
  const phrase = change.phrase;
  // Where the loaded stretch starts: its first phrase as it was (an edit of that phrase
  // in place stays).
  const first = list.phrases[0];
  // Where the loaded stretch ends: the place the next page starts after, which stays when
  // the last phrases loaded are removed (a burst that removes every one and mints anew
  // keeps what it mints), else the last phrase loaded.
  const end = (list.next === null ? undefined : cursorPlace(list.next)) ?? rest[rest.length - 1];
  const aboveEnd = list.next === null || (end !== undefined && comparePosition(phrase, end) < 0);
  const belowTop = list.fromTop || (first !== undefined && comparePosition(first, phrase) <= 0);
  // Outside the stretch (one loaded may have moved there: its time written by hand) it
  // comes with its page, in its place, not at an end of this one.
  if (!(aboveEnd && belowTop)) return at < 0 ? list : { ...list, phrases: rest };
  const index = insertionIndex(rest, phrase);
  return { ...list, phrases: [...rest.slice(0, index), phrase, ...rest.slice(index)] };
}

/** The place a page cursor (`{created}-{id}`, the host's) names, as a phrase there would sit. */
function cursorPlace(cursor: string): Phrase | undefined {
  const dash = cursor.indexOf("-");
  const created = Number(cursor.slice(0, dash));
  if (dash < 1 || !isVersion(created)) return undefined;
  return { id: cursor.slice(dash + 1), word: "", name: "", created };
}

/** Where `phrase` goes in `phrases` (newest first): how many of them are newer. */
export function insertionIndex(phrases: readonly Phrase[], phrase: Phrase): number {
  let low = 0;
  let high = phrases.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comparePosition(phrases[middle]!, phrase) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Whether two versions are of one host process, which alone orders them: each host's
 * versions count on from a random epoch above 32 bits, and behind a load balancer a page
 * may come from another replica than the socket's.
 */
function sameHost(a: number, b: number): boolean {
  return Math.floor(a / 2 ** 32) === Math.floor(b / 2 ** 32);
}

/**
 * A page's phrases less those the socket removed after the page was made, or at a time
 * that cannot be told (a page from another replica, which may not have seen the removal).
 */
function current(feed: Feed, page: PhrasePage): readonly Phrase[] {
  if (feed.removed.size === 0) return page.phrases;
  return page.phrases.filter((phrase) => {
    const removedAt = feed.removed.get(phrase.id);
    return removedAt === undefined || (sameHost(removedAt, page.version) && removedAt <= page.version);
  });
}

/**
 * `list`, just made of pages at `version`, with what the socket minted or edited after
 * then, or at a time that cannot be told (a page from another replica): the socket's
 * latest word on a phrase stands over a page's.
 */
function since(feed: Feed, list: PagedList, version: number): PagedList {
  let out = list;
  for (const { phrase, version: at } of feed.upserted.values()) {
    if (sameHost(at, version) && at <= version) continue;
    out = applyChange(out, { op: "upsert", phrase });
  }
  return out;
}

/** The page's count if it is newer than the one shown; one from another replica is not. */
function counted(feed: Feed, page: PhrasePage): Feed {
  if (!sameHost(page.version, feed.countVersion) || page.version < feed.countVersion) return feed;
  return { ...feed, count: page.count, countVersion: page.version };
}

function dedupeById(phrases: readonly Phrase[]): Phrase[] {
  const byId = new Map<string, Phrase>();
  for (const phrase of phrases) byId.set(phrase.id, phrase);
  return [...byId.values()];
}

function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isCursor(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

export function isPhrase(value: unknown): value is Phrase {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.word === "string" &&
    typeof value.name === "string" &&
    isVersion(value.created)
  );
}

function isPhraseArray(value: unknown): value is Phrase[] {
  return Array.isArray(value) && value.every(isPhrase);
}

function isChange(value: unknown): value is Change {
  if (!isRecord(value)) return false;
  if (value.op === "upsert") return isPhrase(value.phrase);
  if (value.op === "remove") return typeof value.id === "string";
  return false;
}

/** What the live feed has said about one phrase since its page was made. */
export interface Watched {
  removed: boolean;
  /** The same words minted again under another id after this one was removed. */
  again: Phrase | null;
  /** The phrase as it reads now, when its words or name were changed since the page was made. */
  edited: Phrase | null;
}

export const UNCHANGED: Watched = { removed: false, again: null, edited: null };

/**
 * What a phrase's page shows once it has asked the host for the page again (the feed
 * could not say what changed): removed for a 404 or 410, with whoever holds its words
 * now (`holder`, from the host's check; `undefined` when that could not be asked, which
 * leaves what the page says of it), else the phrase as that page has it, edited or not;
 * `null` leaves what it shows as it is.
 */
export function watchAnswer(watched: Watched, phrase: Phrase, status: number, now: Phrase | null, holder?: Phrase | null): Watched | null {
  if (status === 404 || status === 410) {
    const again = holder === undefined ? watched.again : holder?.id === phrase.id ? null : holder;
    return { ...watched, removed: true, again };
  }
  if (status < 200 || status > 299 || now === null || now.id !== phrase.id) return null;
  return now.word === phrase.word && now.name === phrase.name ? UNCHANGED : { ...UNCHANGED, edited: now };
}

/** Folds a batch of changes into what a phrase's page shows about its phrase. */
export function watchPhrase(watched: Watched, phrase: Phrase, changes: readonly Change[]): Watched {
  let next = watched;
  for (const change of changes) {
    if (change.op === "remove") {
      if (change.id === phrase.id) next = { ...next, removed: true };
      else if (next.again?.id === change.id) next = { ...next, again: null };
    } else if (change.phrase.id === phrase.id) {
      const same = change.phrase.word === phrase.word && change.phrase.name === phrase.name;
      next = same ? UNCHANGED : { ...UNCHANGED, edited: change.phrase };
    } else if (next.removed && change.phrase.word === phrase.word) {
      next = { ...next, again: change.phrase };
    }
  }
  return next;
}
