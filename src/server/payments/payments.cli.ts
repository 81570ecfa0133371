import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { runPaymentsCommand } from './refund-command';

// `npm run payments -- refund <site-id> <payment-id> [amount]`: operator refunds until the operator console exists.
const app = await createAppContext(readConfig());
const result = await runPaymentsCommand(app, process.argv.slice(2));
for (const line of result.out) (result.code === 0 ? console.log : console.error)(line);
await app.close();
process.exit(result.code);
