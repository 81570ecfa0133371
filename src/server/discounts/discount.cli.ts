import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { runDiscountCommand } from './discount-command';

// `npm run discount -- create|list|disable|enable …` (see DISCOUNT_USAGE): discount codes until the operator console exists.
const app = await createAppContext(readConfig());
const result = await runDiscountCommand(app, process.argv.slice(2));
for (const line of result.out) (result.code === 0 ? console.log : console.error)(line);
await app.close();
process.exit(result.code);
