import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { seedDemo } from './seed';

// `npm run seed`: adds the demo population (run it on an empty database; `npm start` does so by itself).
const app = await createAppContext(readConfig());
const started = Date.now();
const created = await seedDemo(app, Number(process.env.SEED_PROFILES ?? 2000));
console.log(`Seeded ${created} profiles in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
await app.close();
