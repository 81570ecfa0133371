import type { TFunction } from 'i18next';

/** Refusals that a first purchase lifts: the premium-only alert replaces their plain error. */
export const PREMIUM_FEATURE_CODES = new Set(['like_limit', 'photo_limit', 'conversation_limit', 'premium_only']);

/** SPEC §8 premium-only feature alert: what happened, and the way to /premium and /credits. */
export function PremiumOnlyAlert({ t, detail }: { t: TFunction; detail?: string | null }) {
  return (
    <div className="alert premium-only" role="alert" data-premium-only>
      <p><strong>{t('premium.only_feature')}</strong>{detail ? ` ${detail}` : ''}</p>
      <p className="button-row">
        <a className="btn btn-primary" href="/premium">{t('shop.premium_only_cta')}</a>
        <a className="btn btn-outline" href="/credits">{t('shop.to_credits')}</a>
      </p>
    </div>
  );
}
