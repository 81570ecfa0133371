import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { migrateToLatest } from './migrate';
import { seedDemoData } from './seed';

// `npm run seed`: adds the demo population (run it on an empty database; `npm start` does so by itself).
const app = createAppContext(readConfig());
await migrateToLatest(app.db);
const started = Date.now();
const created = await seedDemoData(app, Number(process.env.SEED_PROFILES ?? 2000));
console.log(`Seeded ${created} profiles in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
await app.db.db.destroy();
