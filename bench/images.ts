// npm run bench:images — explicit-image scoring (docs/safety-images.md): time per image through the
// path the score_image job takes (sharp decode → nsfwjs in its worker thread), and the proof that it
// does not block the event loop of the process answering requests: the event-loop delay p99 while
// scoring, as a ratio to the same process idle. For comparison, the same model run on the main
// thread (what the worker thread avoids). BENCH_IMAGES images (default 40) of 640×480 to 3000×2000.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { createModelScorer, decodeForModel, MODEL_SIZE, scoreImage } from '../src/server/safety/images';

const COUNT = Number(process.env.BENCH_IMAGES ?? 40);
const IDLE_MS = 2000;
const ms = (ns: number) => ns / 1e6;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** Benign test pictures: coloured shapes on a background, in a few sizes and formats. */
async function pictures(n: number): Promise<Buffer[]> {
  const sizes = [[640, 480], [1280, 960], [1600, 1200], [3000, 2000]] as const;
  return Promise.all(Array.from({ length: n }, (_, i) => {
    const [width, height] = sizes[i % sizes.length];
    const hue = (i * 47) % 360;
    const svg = `<svg width="${width}" height="${height}"><rect width="100%" height="100%" fill="hsl(${hue},60%,70%)"/>`
      + `<circle cx="${width / 3}" cy="${height / 2}" r="${height / 4}" fill="hsl(${(hue + 120) % 360},70%,45%)"/>`
      + `<rect x="${width / 2}" y="${height / 3}" width="${width / 3}" height="${height / 3}" fill="hsl(${(hue + 240) % 360},50%,35%)"/></svg>`;
    return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
  }));
}

/** Runs `work` while the event-loop delay is recorded; returns its p50/p99/max in ms. */
async function loopDelay(work: () => Promise<void>) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  histogram.disable();
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
}

const images = await pictures(COUNT);
const idle = await loopDelay(() => new Promise((resolve) => setTimeout(resolve, IDLE_MS)));

const scorer = createModelScorer();
const startLoad = performance.now();
await scoreImage(scorer, images[0]);
const firstMs = performance.now() - startLoad;
const times: number[] = [];
const scoring = await loopDelay(async () => {
  for (const image of images) {
    const started = performance.now();
    const verdict = await scoreImage(scorer, image);
    if (verdict.status !== 'scored') throw new Error(`bench image not scored: ${verdict.error}`);
    times.push(performance.now() - started);
  }
});
await scorer.close();

// The same model on this thread, as a request process would run it without the worker.
const tf = await import('@tensorflow/tfjs');
const wasm = await import('@tensorflow/tfjs-backend-wasm');
const path = await import('node:path');
const { createRequire } = await import('node:module');
wasm.setWasmPaths(`${path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'))}${path.sep}`);
for (const level of ['log', 'info', 'warn'] as const) console[level] = () => undefined;
await tf.setBackend('wasm');
const nsfwjs = await import('nsfwjs');
const model = await nsfwjs.load('MobileNetV2', { size: MODEL_SIZE });
const inline = await loopDelay(async () => {
  for (const image of images.slice(0, Math.min(COUNT, 20))) {
    const input = tf.tensor3d(await decodeForModel(image), [MODEL_SIZE, MODEL_SIZE, 3], 'int32');
    await model.classify(input);
    input.dispose();
  }
});

const sorted = [...times].sort((a, b) => a - b);
const mean = times.reduce((a, b) => a + b, 0) / times.length;
const f = (x: number) => x.toFixed(1);
const out = process.stdout;
out.write(`images scored: ${COUNT} (640×480 … 3000×2000 JPEG), backend wasm in a worker thread\n`);
out.write(`first image (worker start + model load): ${f(firstMs)} ms\n`);
out.write(`time per image: mean ${f(mean)} ms, p50 ${f(pct(sorted, 50))} ms, p95 ${f(pct(sorted, 95))} ms, max ${f(sorted[sorted.length - 1])} ms (${f(1000 / mean)} images/s)\n`);
out.write(`event-loop delay idle:            p50 ${f(idle.p50)} ms, p99 ${f(idle.p99)} ms, max ${f(idle.max)} ms\n`);
out.write(`event-loop delay while scoring:   p50 ${f(scoring.p50)} ms, p99 ${f(scoring.p99)} ms, max ${f(scoring.max)} ms\n`);
out.write(`event-loop delay, model on main:  p50 ${f(inline.p50)} ms, p99 ${f(inline.p99)} ms, max ${f(inline.max)} ms (what the worker avoids)\n`);
const ratio = scoring.p99 / idle.p99;
out.write(`p99 while scoring / p99 idle: ${ratio.toFixed(2)} (main-thread model: ${(inline.p99 / idle.p99).toFixed(2)})\n`);
// The request process stays responsive: its event loop may not wait longer than a few ms for scoring.
process.exit(scoring.p99 < 20 ? 0 : 1);
