import { readConfig } from '../config';
import { openDatabase } from './database';
import { migrateToLatest } from './migrate';

const config = readConfig();
const handle = openDatabase(config.databaseUrl);
const applied = await migrateToLatest(handle);
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
await handle.db.destroy();
