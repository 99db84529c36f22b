import { JOIN_CHAT } from "../../data/copy";
import { productCallToAction } from "../../data/site";
import type { SiteProps } from "../../types";
import { ButtonLink } from "../ButtonLink";

export interface Props {
  site: SiteProps;
}

/** The page's two invitations side by side: the community chat (new tab) and the product page. */
export function JoinButtons({ site }: Props) {
  return (
    <div className="mt-8 flex flex-wrap gap-3">
      <ButtonLink href={site.links.chat} newTab>
        {JOIN_CHAT}
      </ButtonLink>
      <ButtonLink href={site.wordsPath} variant="outline">
        {productCallToAction(site)}
      </ButtonLink>
    </div>
  );
}
