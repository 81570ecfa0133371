import { readFile } from 'node:fs/promises';
import { createModelScorer, scoreImage } from './images';

// `npm run -s safety -- <subcommand> …`: the safety checks by hand (docs/safety-images.md).
// Each subcommand is one entry of SUBCOMMANDS below; its function gets the remaining arguments and
// returns the exit code, so further subcommands (`classify`) join the table without touching the rest.

type Subcommand = { usage: string; run(args: string[]): Promise<number> };

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
  image: { usage: 'image FILE…', run: imageCommand },
};

function usage(): number {
  console.error(`Usage: npm run -s safety -- ${Object.values(SUBCOMMANDS).map((s) => s.usage).join(' | ')}`);
  return 2;
}

const [name, ...args] = process.argv.slice(2);
const subcommand = name === undefined ? undefined : SUBCOMMANDS[name];
process.exit(subcommand ? await subcommand.run(args) : usage());
