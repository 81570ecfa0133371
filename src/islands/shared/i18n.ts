import { createInstance, type TFunction } from 'i18next';
import { useMemo } from 'react';
import { I18N_OPTIONS } from '../../shared/i18n/options';

/** Props every island gets: its locale and that locale's messages (server-picked). */
export interface IslandI18n {
  locale: string;
  messages: Record<string, string>;
}

/** A translate function for an island from the messages the page handed it. */
export function useIslandT({ locale, messages }: IslandI18n): TFunction {
  return useMemo(() => {
    const instance = createInstance();
    instance.init({ ...I18N_OPTIONS, lng: locale, resources: { [locale]: { translation: messages } } });
    return instance.t;
  }, [locale, messages]);
}
