import { useEffect, useState } from "react";
import { hashtag } from "../data/copy";
import { phrasePath } from "../data/site";
import { refitHeadline } from "../headline";
import { isolated } from "../text";
import type { PhraseProps } from "../types";
import { useHydrated } from "../useHydrated";
import { usePhraseWatch } from "../usePhraseWatch";
import { ButtonLink } from "../components/ButtonLink";

export type Props = PhraseProps;

const BUTTON_CLASSES =
  "inline-flex min-h-12 items-center justify-center rounded-full bg-accent px-6 py-3 font-display text-sm font-black uppercase tracking-wide text-black hover:bg-accent-strong";

/**
 * What of a phrase's page needs the browser: whether the phrase is still
 * minted (the live feed says when it is removed, or minted again), and Share.
 * The post link works without JavaScript; the Share button appears once live,
 * after it.
 */
export function PhraseLive({ site, version, phrase, url, postUrl }: Props) {
  const hydrated = useHydrated();
  const watched = usePhraseWatch(phrase, version);
  const [notice, setNotice] = useState("");
  const text = `“${isolated((watched.edited ?? phrase).word)}” ${hashtag(site.productName)}`;

  // The headline is the page's, outside the island: only its data-fit may change.
  useEffect(() => {
    const headline = document.querySelector<HTMLElement>("h1[data-fit]");
    if (headline) void document.fonts.ready.then(() => refitHeadline(headline));
  }, []);

  const onShare = async () => {
    const data = { title: document.title, text, url };
    if (typeof navigator.share === "function" && (navigator.canShare?.(data) ?? true)) {
      try {
        await navigator.share(data);
        return;
      } catch (error) {
        // The visitor closed the share sheet: nothing to say.
        if (error instanceof DOMException && error.name === "AbortError") return;
      }
    }
    setNotice((await copyText(url)) ? "Link copied" : `Copy this link: ${url}`);
  };

  return (
    <>
      <div role="status" className="mt-6 text-lg">
        {watched.removed && (
          <p className="font-bold text-accent">{`This Last ${site.productName} has been removed.`}</p>
        )}
        {watched.edited !== null && !watched.removed && (
          <p className="font-bold text-accent">
            {"Changed since this page opened: it now reads “"}
            <bdi>{watched.edited.word}</bdi>
            {"”, by "}
            <bdi>{watched.edited.name}</bdi>
            {". "}
            <a href={phrasePath(site, phrase.id)} className="underline hover:text-accent-strong">
              Show it
            </a>
          </p>
        )}
        {watched.again !== null && (
          <p className="mt-2 text-white/80">
            <a href={phrasePath(site, watched.again.id)} className="underline hover:text-accent">
              {"Minted again by "}
              <bdi>{watched.again.name}</bdi>
            </a>
          </p>
        )}
      </div>
      {/* A removed phrase's link answers 410: nothing offers to share it. */}
      {!watched.removed && (
        <div className="mt-8 flex flex-wrap items-center gap-4">
          {/* The post link first: the Share button arrives with hydration, and coming
              after it, moves nothing the visitor already sees (no layout shift). */}
          <ButtonLink href={postUrl} variant="outline" newTab>
            Post on X
          </ButtonLink>
          {hydrated && (
            <button type="button" onClick={() => void onShare()} className={BUTTON_CLASSES}>
              Share
            </button>
          )}
          <p role="status" className="text-sm text-white/80 break-all">
            {notice}
          </p>
        </div>
      )}
    </>
  );
}

/** The clipboard API where the page may use it, else a selected text field and the copy command. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    document.body.append(field);
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      field.remove();
    }
  }
}
