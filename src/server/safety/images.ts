import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { MAX_PIXELS, PHOTO_MAX_BYTES } from '../photos/photo-limits';

/**
 * Explicit-image scoring (issue 26 item 4; docs/safety-images.md): nsfwjs' MobileNetV2 model on the
 * WASM backend of @tensorflow/tfjs, in a worker thread. sharp decodes an image to the model's input
 * (224×224 RGB) on libuv's thread pool with the upload pipeline's limits, so a corrupt or hostile
 * file fails here, as a 'failed' result, and never reaches the model.
 */

/** The model's five classes, as probabilities that sum to 1. */
export interface ImageScores { drawing: number; hentai: number; neutral: number; porn: number; sexy: number }
export const MODEL_SIZE = 224;
/** An image is explicit when porn + hentai reach this (sexy alone — swimwear, underwear — is not). */
export const EXPLICIT_THRESHOLD = 0.5;
/** Longest one image may take in the worker before it is ended (and started again for the next). */
const SCORE_TIMEOUT_MS = 30_000;

export type ImageVerdict =
  | { status: 'scored'; scores: ImageScores; score: number; explicit: boolean }
  | { status: 'failed'; error: string };

/** What turns model input into scores: the model in a worker, or the fake scorer of test runs. */
export interface ImageScorer {
  readonly name: string;
  score(pixels: Uint8Array): Promise<ImageScores>;
  close(): Promise<void>;
}

/** The explicit score shown to moderators: how likely the image is porn or hentai (0…1). */
export const explicitScore = (scores: ImageScores) => Math.min(1, Math.round((scores.porn + scores.hentai) * 10000) / 10000);

/** An image that cannot be read (empty, corrupt, too large, a decompression bomb). */
export class ImageDecodeError extends Error {}

/** Decodes any uploaded image to 224×224 RGB bytes (the model's input), with the upload limits. */
export async function decodeForModel(body: Uint8Array): Promise<Uint8Array> {
  if (body.length === 0) throw new ImageDecodeError('empty file');
  if (body.length > PHOTO_MAX_BYTES) throw new ImageDecodeError('file too large');
  try {
    const { data, info } = await sharp(body, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(MODEL_SIZE, MODEL_SIZE, { fit: 'fill' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.length !== MODEL_SIZE * MODEL_SIZE * 3) throw new Error(`unexpected ${info.channels} channels`);
    return new Uint8Array(data.buffer, data.byteOffset, data.length);
  } catch (err) {
    throw new ImageDecodeError(String((err as Error).message ?? err).slice(0, 200));
  }
}

/** Scores an image file's bytes; an unreadable image is a 'failed' verdict, a broken scorer throws. */
export async function scoreImage(scorer: ImageScorer, body: Uint8Array): Promise<ImageVerdict> {
  let pixels: Uint8Array;
  try {
    pixels = await decodeForModel(body);
  } catch (err) {
    return { status: 'failed', error: (err as Error).message };
  }
  const scores = await scorer.score(pixels);
  const score = explicitScore(scores);
  return { status: 'scored', scores, score, explicit: score >= EXPLICIT_THRESHOLD };
}

type Pending = { resolve(scores: ImageScores): void; reject(err: Error): void; timer: NodeJS.Timeout };

/**
 * The nsfwjs model in a worker thread, started at the first image and kept for the next ones (the
 * model loads in ~0.3 s). A worker that dies or hangs is ended; the next image starts a new one.
 */
export function createModelScorer(): ImageScorer {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const failAll = (err: Error) => {
    for (const [id, p] of pending) { clearTimeout(p.timer); p.reject(err); pending.delete(id); }
  };
  const start = () => {
    // Beside this module in the sources, beside dist/server-main.mjs once bundled.
    const w = new Worker(new URL('./images.worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 512 } });
    w.on('message', (msg: { id: number; scores?: ImageScores; error?: string }) => {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.scores) p.resolve(msg.scores);
      else p.reject(new Error(`image model: ${msg.error}`));
      if (pending.size === 0) w.unref();
    });
    w.on('error', (err) => failAll(new Error(`image worker failed: ${err.message}`)));
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new Error(`image worker exited (${code})`));
    });
    return w;
  };
  return {
    name: 'nsfwjs',
    score(pixels) {
      worker ??= start();
      const w = worker;
      // Held open only while an image is in hand: an idle worker never keeps the process alive.
      w.ref();
      const id = nextId++;
      return new Promise<ImageScores>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error('image model timed out'));
          void w.terminate();
        }, SCORE_TIMEOUT_MS);
        pending.set(id, { resolve, reject, timer });
        const copy = pixels.slice();
        w.postMessage({ id, pixels: copy.buffer }, [copy.buffer]);
      });
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

/**
 * Test runs only (IMAGE_SCORER=fake, refused by readConfig in production): no real explicit image can
 * ship with the tests, so a mostly pure-red image counts as explicit and anything else as neutral.
 */
export function createFakeScorer(): ImageScorer {
  return {
    name: 'fake',
    async score(pixels) {
      let r = 0, g = 0, b = 0;
      for (let i = 0; i < pixels.length; i += 3) { r += pixels[i]; g += pixels[i + 1]; b += pixels[i + 2]; }
      const n = pixels.length / 3;
      const red = r / n > 180 && g / n < 80 && b / n < 80;
      return red
        ? { drawing: 0.01, hentai: 0.02, neutral: 0.01, porn: 0.95, sexy: 0.01 }
        : { drawing: 0.02, hentai: 0, neutral: 0.96, porn: 0.01, sexy: 0.01 };
    },
    async close() {},
  };
}

/** The scorer a process uses: the model, or the fake one where the configuration allows it. */
export function createImageScorer(kind: 'model' | 'fake'): ImageScorer {
  return kind === 'fake' ? createFakeScorer() : createModelScorer();
}
