import { createInterface } from 'node:readline';
import { isLocale } from '../../shared/locales';
import { classifyText } from './classify';

/**
 * `npm run -s safety -- classify`: JSON lines `{"text": "...", "lang": "nl"}` on standard input, one
 * `{"flags": [...]}` line per input on standard output (an `{"error": ...}` line for a bad one).
 */
async function classify() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let out: unknown;
    try {
      const input = JSON.parse(line) as { text?: unknown; lang?: unknown };
      if (typeof input.text !== 'string') out = { error: 'text must be a string' };
      else if (input.lang !== undefined && !isLocale(input.lang)) out = { error: `unknown lang ${String(input.lang)}` };
      else out = { flags: classifyText(input.text, isLocale(input.lang) ? input.lang : 'en') };
    } catch {
      out = { error: 'not a JSON line' };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
}

const commands: Record<string, () => Promise<void>> = { classify };
const command = commands[process.argv[2] ?? ''];
if (!command) {
  process.stderr.write('usage: npm run -s safety -- classify < lines.jsonl\n');
  process.exit(2);
}
await command();
