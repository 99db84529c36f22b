/**
 * Text rules shared by the checker, the phrase list and the host.
 *
 * A character is an extended grapheme cluster (UAX #29), the unit
 * `Intl.Segmenter` uses with granularity "grapheme". It is implemented here
 * rather than taken from `Intl` because the server engine (QuickJS-ng) has no
 * `Intl`, and hydration needs the server and the browser to count alike.
 * The differential test in text.test.ts holds it to `Intl.Segmenter`.
 */

export const MAX_GRAPHEMES = 20;
/** Bytes of UTF-8 a phrase may take: emoji joined without end are one grapheme. */
export const MAX_WORD_BYTES = 400;
/** Combining marks one character may carry. */
export const MAX_MARKS = 4;

/**
 * What a phrase is stored and compared as: NFC, runs of spaces folded to one
 * and trimmed (a page shows them alike), upper-cased, NFC again.
 */
export function normalizeWord(input: string): string {
  return foldSpaces(input.normalize("NFC")).toUpperCase().normalize("NFC");
}

/**
 * Whether `text` upper-cased is as long as it is (ß is SS, ﬃ is FFI): only then may a
 * box show it upper-cased by CSS, as Chromium drops what is typed over a selection of
 * text that grows when upper-cased.
 */
export function upperCasesInPlace(text: string): boolean {
  return text.toUpperCase().length === text.length;
}

/**
 * `input` as a find looks for it, as the host's `find_text` does: normalised, so
 * "ab" finds "AB"; a text no phrase may hold (invisible or control characters), or
 * nothing that shows (a mark alone), finds nothing out, so the whole list shows.
 * Longer than a phrase finds nothing.
 */
export function findText(input: string): string {
  const normalized = normalizeWord(input);
  const error = contentError(normalized);
  return error === "invalid" || error === "empty" ? "" : normalized;
}

/** Why a normalized phrase cannot be minted, in the host's words, or null. */
export type ContentError = "empty" | "too_long" | "invalid";

/**
 * The host's content rules (server/src/text.rs), in the same order: nothing
 * invisible, control, private or unassigned; a joiner only inside an emoji
 * sequence, tag characters only in a tag flag; at most four marks in a row; at
 * least one character that shows. A character this browser's Unicode does not
 * know breaks none here: the host's may be newer, so it is the host's to judge
 * (see `unknownHere`).
 */
export function contentError(normalized: string): ContentError | null {
  const clusters = graphemes(normalized);
  for (const problem of clusterProblems(clusters)) {
    if (problem !== null && problem !== "unknown") return "invalid";
  }
  // Marks alone show as much as spaces do.
  if (!VISIBLE_RE.test(normalized)) return "empty";
  if (clusters.length > MAX_GRAPHEMES) return "too_long";
  if (utf8Length(normalized) > MAX_WORD_BYTES) return "invalid";
  return null;
}

// A braille blank shows as a space, so it folds like one.
const SPACES_RE = /[\p{Zs}\u2800]+/gu;
const EDGE_SPACE_RE = /^ | $/g;
// With the musical null notehead (blank in most fonts) and the replacement character
// (text broken on its way in).
const FORBIDDEN_RE = /^[\p{Cc}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u{1D159}\uFFFD]$/u;
const UNASSIGNED_RE = /^\p{Cn}$/u;
const FORMAT_RE = /^\p{Cf}$/u;
const MARK_RE = /^[\p{Mn}\p{Me}]$/u;
const IGNORABLE_RE = /^\p{Default_Ignorable_Code_Point}$/u;
// Variation selectors (an emoji's or a CJK character's form) and Mongolian's.
const SELECTOR_RE = /^[\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u180B-\u180D\u180F]$/u;
const VISIBLE_RE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{M}]/u;
// Letters a selector changes nothing in (`DINO︀` would show as a taken `DINO`), and marks.
const NO_SELECTOR_RE = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Inherited}]$/u;
const KEYCAP_BASE_RE = /^[0-9#*]$/;
const EMOJI_SELECTOR_RE = /^[\uFE0E\uFE0F]$/;
const ZERO_WIDTH_JOINER = "\u200d";
const ZERO_WIDTH_NON_JOINER = "\u200c";
const EMOJI_RE = /^\p{Emoji}$/u;
// Canonical combining class 9, Unicode 17 (tests/vectors/viramas.json): the vowel killers
// a joiner may follow.
const VIRAMA_RE =
  /^[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA\u0E3A\u0EBA\u0F84\u1039\u103A\u1714\u1715\u1734\u17D2\u1A60\u1B44\u1BAA\u1BAB\u1BF2\u1BF3\u2D7F\uA806\uA82C\uA8C4\uA953\uA9C0\uAAF6\uABED\u{10A3F}\u{11046}\u{11070}\u{1107F}\u{110B9}\u{11133}\u{11134}\u{111C0}\u{11235}\u{112EA}\u{1134D}\u{113CE}\u{113CF}\u{113D0}\u{11442}\u{114C2}\u{115BF}\u{1163F}\u{116B6}\u{1172B}\u{11839}\u{1193D}\u{1193E}\u{119E0}\u{11A34}\u{11A47}\u{11A99}\u{11C3F}\u{11D44}\u{11D45}\u{11D97}\u{11F41}\u{11F42}\u{1612F}]$/u;
// Joining_Type L or D, and R or D, of Unicode 16 (tests/vectors/joining.json): letters
// that join the next one, and letters the one before joins.
export const JOINS_LEFT_RE =
  /^[\u0620\u0626\u0628\u062A-\u062E\u0633-\u063F\u0641-\u0647\u0649-\u064A\u066E-\u066F\u0678-\u0687\u069A-\u06BF\u06C1-\u06C2\u06CC\u06CE\u06D0-\u06D1\u06FA-\u06FC\u06FF\u0712-\u0714\u071A-\u071D\u071F-\u0727\u0729\u072B\u072D-\u072E\u074E-\u0758\u075C-\u076A\u076D-\u0770\u0772\u0775-\u0777\u077A-\u077F\u07CA-\u07EA\u0841-\u0845\u0848\u084A-\u0853\u0855\u0860\u0862-\u0865\u0868\u0886\u0889-\u088D\u08A0-\u08A9\u08AF-\u08B0\u08B3-\u08B8\u08BA-\u08C8\u1807\u1820-\u1878\u1887-\u18A8\u18AA\uA840-\uA872\u{10AC0}-\u{10AC4}\u{10ACD}\u{10AD3}-\u{10ADC}\u{10ADE}-\u{10AE0}\u{10AEB}-\u{10AEE}\u{10B80}\u{10B82}\u{10B86}-\u{10B88}\u{10B8A}-\u{10B8B}\u{10B8D}\u{10B90}\u{10BAD}-\u{10BAE}\u{10D00}-\u{10D21}\u{10D23}\u{10EC3}-\u{10EC4}\u{10F30}-\u{10F32}\u{10F34}-\u{10F44}\u{10F51}-\u{10F53}\u{10F70}-\u{10F73}\u{10F76}-\u{10F81}\u{10FB0}\u{10FB2}-\u{10FB3}\u{10FB8}\u{10FBB}-\u{10FBC}\u{10FBE}-\u{10FBF}\u{10FC1}\u{10FC4}\u{10FCA}-\u{10FCB}\u{1E900}-\u{1E943}]$/u;
export const JOINS_RIGHT_RE =
  /^[\u0620\u0622-\u063F\u0641-\u064A\u066E-\u066F\u0671-\u0673\u0675-\u06D3\u06D5\u06EE-\u06EF\u06FA-\u06FC\u06FF\u0710\u0712-\u072F\u074D-\u077F\u07CA-\u07EA\u0840-\u0858\u0860\u0862-\u0865\u0867-\u086A\u0870-\u0882\u0886\u0889-\u088E\u08A0-\u08AC\u08AE-\u08C8\u1807\u1820-\u1878\u1887-\u18A8\u18AA\uA840-\uA871\u{10AC0}-\u{10AC5}\u{10AC7}\u{10AC9}-\u{10ACA}\u{10ACE}-\u{10AD6}\u{10AD8}-\u{10AE1}\u{10AE4}\u{10AEB}-\u{10AEF}\u{10B80}-\u{10B91}\u{10BA9}-\u{10BAE}\u{10D01}-\u{10D23}\u{10EC2}-\u{10EC4}\u{10F30}-\u{10F44}\u{10F51}-\u{10F54}\u{10F70}-\u{10F81}\u{10FB0}\u{10FB2}-\u{10FB6}\u{10FB8}-\u{10FBF}\u{10FC1}-\u{10FC4}\u{10FC9}-\u{10FCA}\u{1E900}-\u{1E943}]$/u;
const BLACK_FLAG = "\u{1F3F4}";
// A black flag, a subdivision code in tag letters, the cancel tag.
const TAG_FLAGS = new Set(
  ["gbeng", "gbsct", "gbwls"].map(
    (code) => `${BLACK_FLAG}${Array.from(code, (c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join("")}\u{E007F}`,
  ),
);

function foldSpaces(text: string): string {
  return text.replace(SPACES_RE, " ").replace(EDGE_SPACE_RE, "");
}

/** Which rule a phrase that breaks them (`contentError` says "invalid") breaks, for the checker to say. */
export type InvalidReason = "character" | "marks" | "bytes";

export function invalidReason(normalized: string): InvalidReason {
  let unknown = false;
  for (const problem of clusterProblems(graphemes(normalized))) {
    if (problem === "unknown") unknown = true;
    else if (problem !== null) return problem;
  }
  // The host refused what this browser could not read: a character, unless it is too big anyway.
  return unknown && utf8Length(normalized) <= MAX_WORD_BYTES ? "character" : "bytes";
}

/**
 * Whether `normalized` holds a character unassigned in this browser's Unicode, which
 * the page cannot judge: a browser a version behind the host's calls the newest emoji
 * unassigned. Only the host's answer says whether such a word is free.
 */
export function unknownHere(normalized: string): boolean {
  return clusterProblems(graphemes(normalized)).includes("unknown");
}

type ClusterProblem = Exclude<InvalidReason, "bytes"> | "unknown";

/** What is wrong with each of `clusters`, in order, each judged with the character after it. */
function clusterProblems(clusters: readonly string[]): (ClusterProblem | null)[] {
  return clusters.map((cluster, i) => {
    const next = clusters[i + 1]?.codePointAt(0);
    return clusterProblem(cluster, next === undefined ? undefined : String.fromCodePoint(next));
  });
}

/**
 * What in `cluster` no phrase may hold, "unknown" for a character only the host can
 * judge, or null. `after` is the character that follows the cluster, if any.
 */
function clusterProblem(cluster: string, after: string | undefined): ClusterProblem | null {
  const chars = Array.from(cluster);
  let marks = 0;
  let unknown = false;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    marks = MARK_RE.test(char) ? marks + 1 : 0;
    if (marks > MAX_MARKS) return "marks";
    if (UNASSIGNED_RE.test(char)) {
      // Noncharacters are unassigned for good: no Unicode the host may have takes them.
      if (isNoncharacter(char.codePointAt(0)!)) return "character";
      unknown = true;
      continue;
    }
    if (FORBIDDEN_RE.test(char)) return "character";
    if (!FORMAT_RE.test(char)) {
      if (SELECTOR_RE.test(char)) {
        if (i === 0 || !takesSelector(chars[i - 1]!, char)) return "character";
        continue;
      }
      // Shown as nothing, yet letters or marks to the categories (Hangul fillers, the
      // combining grapheme joiner): a phrase of them reads as blank, or as another with a space.
      if (IGNORABLE_RE.test(char)) return "character";
      continue;
    }
    const cp = char.codePointAt(0) ?? 0;
    if (char === ZERO_WIDTH_JOINER) {
      // Between two emoji (the first maybe in its emoji form): anywhere else it shows as nothing.
      const prev = chars[i - 1];
      const next = chars[i + 1];
      const joinsEmoji =
        prev !== undefined &&
        (prev === "\uFE0F" || isEmoji(prev)) &&
        chars[chars.length - 1] !== ZERO_WIDTH_JOINER &&
        next !== undefined &&
        isEmoji(next);
      if (!joinsEmoji && !shapesLetters(chars, i, after)) return "character";
    } else if (char === ZERO_WIDTH_NON_JOINER) {
      if (!shapesLetters(chars, i, after)) return "character";
    } else if (cp >= 0xe0020 && cp <= 0xe007f) {
      if (!isTagFlag(chars)) return "character";
    } else {
      return "character";
    }
  }
  return unknown ? "unknown" : null;
}

/**
 * Whether the joiner at `chars[i]` is one a script's spelling needs (the host's
 * `shapes_letters`, after RFC 5892's CONTEXTJ rules): after a virama, or a non-joiner
 * between a letter that would join the next and one that would join it, marks aside.
 */
function shapesLetters(chars: readonly string[], i: number, after: string | undefined): boolean {
  const before = chars[i - 1];
  if (before === undefined) return false;
  if (VIRAMA_RE.test(before)) return true;
  if (chars[i] !== ZERO_WIDTH_NON_JOINER) return false;
  const left = chars.slice(0, i).reverse().find((char) => !MARK_RE.test(char));
  const right = [...chars.slice(i + 1), ...(after === undefined ? [] : [after])].find((char) => !MARK_RE.test(char));
  return left !== undefined && right !== undefined && JOINS_LEFT_RE.test(left) && JOINS_RIGHT_RE.test(right);
}

/**
 * Whether the characters of a cluster are one of the flags spelled in tag characters
 * that show as flags (the host's `tag_flag`: England, Scotland, Wales).
 */
function isTagFlag(chars: readonly string[]): boolean {
  return TAG_FLAGS.has(chars.join(""));
}

/** An emoji of its own (Unicode's Emoji property), not one of the ASCII keycap bases. */
function isEmoji(char: string): boolean {
  return char.codePointAt(0)! >= 0x80 && EMOJI_RE.test(char);
}

/** U+FDD0..U+FDEF, and the last two code points of every plane. */
function isNoncharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

/**
 * Whether `selector` after `base` can change how it shows (the host's
 * `takes_selector`): of ASCII only a keycap's base takes one, the emoji one.
 */
function takesSelector(base: string, selector: string): boolean {
  if (base.codePointAt(0)! < 0x80) {
    return KEYCAP_BASE_RE.test(base) && EMOJI_SELECTOR_RE.test(selector);
  }
  return !NO_SELECTOR_RE.test(base);
}

/**
 * The blocks Unicode gives to right-to-left scripts (their unassigned code points default
 * to R or AL too) and the direction controls: every character that can turn the text
 * around it (the host asks its bidi tables; these ranges hold each of theirs, and some
 * marks and symbols more, which isolating costs nothing).
 */
const TURNS_RE = /[\u0590-\u08FF\u200F\u202A-\u202E\u2066-\u2069\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/**
 * `text` in a first-strong isolate where it could turn the line around it (a Hebrew
 * phrase before a hashtag), as the host writes a title; as it is otherwise, so copied
 * text holds no invisible characters.
 */
export function isolated(text: string): string {
  return TURNS_RE.test(text) ? `\u2068${text}\u2069` : text;
}

/** Bytes of `text` in UTF-8, as the host counts a phrase's. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * "12,345": digits grouped by three with commas, as `toLocaleString("en-US")`
 * does; written out because the server engine has no `Intl` and hydration
 * needs both sides to print the same.
 */
export function groupThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function graphemeCount(text: string): number {
  if (isSimple(text)) return text.length;
  let count = 0;
  forEachBoundary(text, () => {
    count += 1;
  });
  return count;
}

export function graphemes(text: string): string[] {
  if (isSimple(text)) return text.split("");
  const clusters: string[] = [];
  let start = 0;
  forEachBoundary(text, (end) => {
    if (end > start) clusters.push(text.slice(start, end));
    start = end;
  });
  return clusters;
}

/** The box after an edit, and where its caret goes. */
export interface Fitted {
  value: string;
  caret: number;
  /** Graphemes of what the edit inserted that were left out. */
  dropped: number;
}

/**
 * The box after an edit, as `maxlength` would leave it, counted in graphemes of the
 * upper-cased form (ß becomes SS): what the edit inserted is cut to the room left,
 * between its own graphemes, and refused where there is none, wherever the caret is;
 * what it removed stays removed, so a phrase that came in too long (`?check=`) can be
 * shortened. `caret` is where the edit left the caret in `next`.
 */
export function fitEdit(previous: string, next: string, caret: number, limit: number): Fitted {
  if (graphemeCount(normalizeWord(next)) <= limit) return { value: next, caret, dropped: 0 };
  // The edit put next[start, caret) in place of what previous held between the
  // common start and the common end after the caret.
  const after = next.slice(caret);
  let start = 0;
  const shared = Math.min(caret, previous.length - (previous.endsWith(after) ? after.length : 0));
  while (start < shared && next[start] === previous[start]) start += 1;
  // Never between the halves of a surrogate pair (🦖 and 🦕 share the first).
  if (start > 0 && /[\uD800-\uDBFF]/.test(next.charAt(start - 1))) start -= 1;
  const before = next.slice(0, start);
  const inserted = graphemes(next.slice(start, caret));
  let kept = "";
  let fitting = 0;
  for (const cluster of inserted) {
    if (graphemeCount(normalizeWord(before + kept + cluster + after)) > limit) break;
    kept += cluster;
    fitting += 1;
  }
  return { value: before + kept + after, caret: start + kept.length, dropped: inserted.length - fitting };
}

// Below U+0300 nothing joins except CR LF, so each UTF-16 unit is a grapheme.
// Most phrases are like this; it spares the engine the rules below.
const SIMPLE_RE = /^[\0-\u02ff]*$/;

function isSimple(text: string): boolean {
  return SIMPLE_RE.test(text) && !text.includes("\r\n");
}

// Grapheme_Cluster_Break values, plus the two side properties the rules read.
const OTHER = 0;
const CR = 1;
const LF = 2;
const CONTROL = 3;
const EXTEND = 4;
const ZWJ = 5;
const REGIONAL_INDICATOR = 6;
const PREPEND = 7;
const SPACING_MARK = 8;
const L = 9;
const V = 10;
const T = 11;
const LV = 12;
const LVT = 13;

const INCB_NONE = 0;
const INCB_CONSONANT = 1;
const INCB_LINKER = 2;
const INCB_EXTEND = 3;

const EXTEND_RE = /^[\p{Grapheme_Extend}\p{Emoji_Modifier}]$/u;
const SPACING_MARK_RE = /^\p{Mc}$/u;
const CONTROL_RE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;
const UNASSIGNED_IGNORABLE_RE = /^(?=\p{Cn})\p{Default_Ignorable_Code_Point}$/u;
const PICTOGRAPHIC_RE = /^\p{Extended_Pictographic}$/u;

type Ranges = readonly (readonly [number, number])[];

const PREPEND_RANGES: Ranges = [
  [0x0600, 0x0605], [0x06dd, 0x06dd], [0x070f, 0x070f], [0x0890, 0x0891],
  [0x08e2, 0x08e2], [0x0d4e, 0x0d4e], [0x110bd, 0x110bd], [0x110cd, 0x110cd],
  [0x111c2, 0x111c3], [0x113d1, 0x113d1], [0x1193f, 0x1193f], [0x11941, 0x11941],
  [0x11a84, 0x11a89], [0x11d46, 0x11d46], [0x11f02, 0x11f02],
];

// Spacing marks that UAX #29 keeps out of SpacingMark (mostly Myanmar), and
// the two letters it puts in.
const NOT_SPACING_MARK_RANGES: Ranges = [
  [0x102b, 0x102c], [0x1038, 0x1038], [0x1062, 0x1064], [0x1067, 0x106d],
  [0x1083, 0x1083], [0x1087, 0x108c], [0x108f, 0x108f], [0x109a, 0x109c],
  [0x1a61, 0x1a61], [0x1a63, 0x1a64], [0xaa7b, 0xaa7b], [0xaa7d, 0xaa7d],
  [0x11720, 0x11721],
];
const EXTRA_SPACING_MARKS: readonly number[] = [0x0e33, 0x0eb3];

// Indic_Conjunct_Break (rule GB9c) as of Unicode 17: a consonant, a
// virama-like linker, a consonant join into one cluster.
const INCB_LINKERS: readonly number[] = [
  0x094d, 0x09cd, 0x0acd, 0x0b4d, 0x0c4d, 0x0d4d, 0x1039, 0x17d2, 0x1a60, 0x1b44,
  0x1bab, 0xa9c0, 0xaaf6, 0x10a3f, 0x11133, 0x113d0, 0x1193e, 0x11a47, 0x11a99, 0x11f42,
];
const INCB_CONSONANT_RANGES: Ranges = [
  [0x0915, 0x0939], [0x0958, 0x095f], [0x0978, 0x097f], [0x0995, 0x09a8], [0x09aa, 0x09b0],
  [0x09b2, 0x09b2], [0x09b6, 0x09b9], [0x09dc, 0x09dd], [0x09df, 0x09df], [0x09f0, 0x09f1],
  [0x0a95, 0x0aa8], [0x0aaa, 0x0ab0], [0x0ab2, 0x0ab3], [0x0ab5, 0x0ab9], [0x0af9, 0x0af9],
  [0x0b15, 0x0b28], [0x0b2a, 0x0b30], [0x0b32, 0x0b33], [0x0b35, 0x0b39], [0x0b5c, 0x0b5d],
  [0x0b5f, 0x0b5f], [0x0b71, 0x0b71], [0x0c15, 0x0c28], [0x0c2a, 0x0c39], [0x0c58, 0x0c5a],
  [0x0d15, 0x0d3a], [0x1000, 0x102a], [0x103f, 0x103f], [0x1050, 0x1055], [0x105a, 0x105d],
  [0x1061, 0x1061], [0x1065, 0x1066], [0x106e, 0x1070], [0x1075, 0x1081], [0x108e, 0x108e],
  [0x1780, 0x17b3], [0x1a20, 0x1a54], [0x1b0b, 0x1b0c], [0x1b13, 0x1b33], [0x1b45, 0x1b4c],
  [0x1b83, 0x1ba0], [0x1bae, 0x1baf], [0x1bbb, 0x1bbd], [0xa989, 0xa98b], [0xa98f, 0xa9b2],
  [0xa9e0, 0xa9e4], [0xa9e7, 0xa9ef], [0xa9fa, 0xa9fe], [0xaa60, 0xaa6f], [0xaa71, 0xaa73],
  [0xaa7a, 0xaa7a], [0xaa7e, 0xaa7f], [0xaae0, 0xaaea], [0xabc0, 0xabda], [0x10a00, 0x10a00],
  [0x10a10, 0x10a13], [0x10a15, 0x10a17], [0x10a19, 0x10a35], [0x11103, 0x11126],
  [0x11144, 0x11144], [0x11147, 0x11147], [0x11380, 0x11389], [0x1138b, 0x1138b],
  [0x1138e, 0x1138e], [0x11390, 0x113b5], [0x11900, 0x11906], [0x11909, 0x11909],
  [0x1190c, 0x11913], [0x11915, 0x11916], [0x11918, 0x1192f], [0x11a00, 0x11a00],
  [0x11a0b, 0x11a32], [0x11a50, 0x11a50], [0x11a5c, 0x11a83], [0x11f04, 0x11f10],
  [0x11f12, 0x11f33],
];

const HANGUL_SYLLABLE_FIRST = 0xac00;
const HANGUL_SYLLABLE_LAST = 0xd7a3;
const HANGUL_T_COUNT = 28;

// Indexed loop on purpose: QuickJS-ng destructures tuples through the
// iterator protocol, which made this the bulk of a server render.
function inRanges(cp: number, ranges: Ranges): boolean {
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i]!;
    if (cp < range[0]) return false;
    if (cp <= range[1]) return true;
  }
  return false;
}

function breakClass(cp: number, char: string): number {
  if (cp < 0x7f) {
    if (cp === 0x0d) return CR;
    if (cp === 0x0a) return LF;
    return cp < 0x20 ? CONTROL : OTHER;
  }
  if (cp === 0x200d) return ZWJ;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return REGIONAL_INDICATOR;
  if (cp >= 0x1100 && cp <= 0x115f) return L;
  if (cp >= 0xa960 && cp <= 0xa97c) return L;
  if (cp >= 0x1160 && cp <= 0x11a7) return V;
  if (cp >= 0xd7b0 && cp <= 0xd7c6) return V;
  if (cp === 0x16d63 || (cp >= 0x16d67 && cp <= 0x16d6a)) return V; // Kirat Rai vowel signs
  if (cp >= 0x11a8 && cp <= 0x11ff) return T;
  if (cp >= 0xd7cb && cp <= 0xd7fb) return T;
  if (cp >= HANGUL_SYLLABLE_FIRST && cp <= HANGUL_SYLLABLE_LAST) {
    return (cp - HANGUL_SYLLABLE_FIRST) % HANGUL_T_COUNT === 0 ? LV : LVT;
  }
  if (EXTEND_RE.test(char)) return EXTEND;
  if (inRanges(cp, PREPEND_RANGES)) return PREPEND;
  if (CONTROL_RE.test(char) || UNASSIGNED_IGNORABLE_RE.test(char)) return CONTROL;
  if (EXTRA_SPACING_MARKS.includes(cp)) return SPACING_MARK;
  if (SPACING_MARK_RE.test(char) && !inRanges(cp, NOT_SPACING_MARK_RANGES)) return SPACING_MARK;
  return OTHER;
}

function conjunctClass(cp: number, gcb: number): number {
  if (INCB_LINKERS.includes(cp)) return INCB_LINKER;
  if (inRanges(cp, INCB_CONSONANT_RANGES)) return INCB_CONSONANT;
  if ((gcb === EXTEND && cp !== 0x200c) || gcb === ZWJ) return INCB_EXTEND;
  return INCB_NONE;
}

const PICTOGRAPHIC_BIT = 1 << 6;

// The property regexes are slow in QuickJS and phrases reuse few code points:
// each one is classified once per engine. Bounded by the code points seen,
// which the 20-grapheme limit keeps small per phrase.
const classCache = new Map<number, number>();

/** breakClass | conjunctClass << 4 | PICTOGRAPHIC_BIT */
function classesOf(cp: number, char: string): number {
  const cached = classCache.get(cp);
  if (cached !== undefined) return cached;
  const current = breakClass(cp, char);
  const pictographic = cp >= 0xa9 && PICTOGRAPHIC_RE.test(char);
  const classes = current | (conjunctClass(cp, current) << 4) | (pictographic ? PICTOGRAPHIC_BIT : 0);
  if (classCache.size < 4096) classCache.set(cp, classes);
  return classes;
}

/**
 * Calls `onBoundary(end)` with the UTF-16 end offset of each cluster.
 * Follows the rules of UAX #29 by number (GB3 … GB999).
 */
function forEachBoundary(text: string, onBoundary: (end: number) => void): void {
  let previous = -1;
  // GB11: 0 outside, 1 after ExtPict Extend*, 2 after ExtPict Extend* ZWJ.
  let emoji = 0;
  // GB9c: 0 outside, 1 after a consonant, 2 once a linker has followed it.
  let conjunct = 0;
  // GB12/13: regional indicators in the current run before this one.
  let regional = 0;
  let offset = 0;
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    const classes = classesOf(cp, char);
    const current = classes & 0xf;
    const incb = (classes >> 4) & 0x3;
    const pictographic = (classes & PICTOGRAPHIC_BIT) !== 0;
    if (previous >= 0 && isBreak(previous, current, emoji, conjunct, regional, incb, pictographic)) {
      onBoundary(offset);
    }

    if (pictographic) emoji = 1;
    else if (current === EXTEND && emoji === 1) emoji = 1;
    else if (current === ZWJ && emoji === 1) emoji = 2;
    else emoji = 0;

    if (incb === INCB_CONSONANT) conjunct = 1;
    else if (incb === INCB_LINKER && conjunct > 0) conjunct = 2;
    else if (incb !== INCB_EXTEND) conjunct = 0;

    regional = current === REGIONAL_INDICATOR ? regional + 1 : 0;
    previous = current;
    offset += char.length;
  }
  if (offset > 0) onBoundary(offset);
}

function isBreak(
  previous: number,
  current: number,
  emoji: number,
  conjunct: number,
  regional: number,
  incb: number,
  pictographic: boolean,
): boolean {
  if (previous === CR && current === LF) return false; // GB3
  if (previous === CR || previous === LF || previous === CONTROL) return true; // GB4
  if (current === CR || current === LF || current === CONTROL) return true; // GB5
  if (previous === L && (current === L || current === V || current === LV || current === LVT)) return false; // GB6
  if ((previous === LV || previous === V) && (current === V || current === T)) return false; // GB7
  if ((previous === LVT || previous === T) && current === T) return false; // GB8
  if (current === EXTEND || current === ZWJ) return false; // GB9
  if (current === SPACING_MARK) return false; // GB9a
  if (previous === PREPEND) return false; // GB9b
  if (incb === INCB_CONSONANT && conjunct === 2) return false; // GB9c
  if (emoji === 2 && pictographic) return false; // GB11
  if (previous === REGIONAL_INDICATOR && current === REGIONAL_INDICATOR) return regional % 2 === 0; // GB12, GB13
  return true; // GB999
}
