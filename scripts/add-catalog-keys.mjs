// Adds keys to the locale catalogs: node scripts/add-catalog-keys.mjs keys.json
// keys.json is { "<locale>": { "<key>": "<text>" } }; existing keys are replaced in place, new ones appended.
import { readFileSync, writeFileSync } from 'node:fs';

const additions = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const [locale, keys] of Object.entries(additions)) {
  const file = `src/shared/i18n/catalogs/${locale}.json`;
  const catalog = JSON.parse(readFileSync(file, 'utf8'));
  Object.assign(catalog, keys);
  writeFileSync(file, `${JSON.stringify(catalog, null, 2)}\n`);
}
