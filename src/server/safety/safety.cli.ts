import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { isLocale } from '../../shared/locales';
import { classifyText } from './classify';
import { createModelScorer, scoreImage } from './images';

// `npm run -s safety -- <subcommand> …`: the safety checks by hand (docs/safety.md, docs/safety-images.md).
// Each subcommand is one entry of SUBCOMMANDS below; its function gets the remaining arguments and
// returns the exit code.

type Subcommand = { usage: string; run(args: string[]): Promise<number> };

/**
 * `classify`: JSON lines `{"text": "...", "lang": "nl"}` on standard input, one `{"flags": [...]}` line per
 * input on standard output (an `{"error": ...}` line for a bad one).
 */
async function classifyCommand(): Promise<number> {
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
  return 0;
}

/** `image FILE…`: one JSON line per file with the nsfwjs scores (exit 1 when a file could not be read). */
async function imageCommand(files: string[]): Promise<number> {
  if (files.length === 0) return usage();
  const scorer = createModelScorer();
  let code = 0;
  try {
    for (const file of files) {
      const started = performance.now();
      const body = await readFile(file).catch(() => null);
      const verdict = body ? await scoreImage(scorer, body) : { status: 'failed' as const, error: 'cannot read the file' };
      if (verdict.status === 'failed') code = 1;
      console.log(JSON.stringify({ file, ...verdict, ms: Math.round(performance.now() - started) }));
    }
  } finally {
    await scorer.close();
  }
  return code;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  classify: { usage: 'classify < lines.jsonl', run: classifyCommand },
  image: { usage: 'image FILE…', run: imageCommand },
};

function usage(): number {
  console.error(`Usage: npm run -s safety -- ${Object.values(SUBCOMMANDS).map((s) => s.usage).join(' | ')}`);
  return 2;
}

const [name, ...args] = process.argv.slice(2);
const subcommand = name === undefined ? undefined : SUBCOMMANDS[name];
process.exit(subcommand ? await subcommand.run(args) : usage());
