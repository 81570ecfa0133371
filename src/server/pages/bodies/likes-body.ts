import { LikesPageIsland } from '../../../islands/likes/LikesPage';
import type { LikeType, LikesResponse } from '../../../shared/chat.contract';
import { fictionalTexts } from '../../../shared/site-texts';
import { html, raw } from '../html';
import { islandMarkup } from '../island-data';
import { type BodyLocals, type MemberBody, memberBody } from './body';

/** /likes and /likes/{type}: tabs and cards (the LikesPage island, fresh from the likes store). */
export function likesBody(locals: BodyLocals, type: LikeType, likes: LikesResponse): MemberBody {
  const { ctx, t } = locals;
  const fictional = fictionalTexts(ctx.site, ctx.locale);
  const island = islandMarkup('likes-page', LikesPageIsland, ctx.locale, { type, initial: likes, fictional: { icon: fictional.icon, label: fictional.singular } });
  return memberBody(`${t('likes.title')} · ${ctx.site.name}`, html`<div class="container likes-container"><h1>${t('likes.title')}</h1>${raw(island)}</div>`);
}
