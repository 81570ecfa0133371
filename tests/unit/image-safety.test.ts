import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { $conversations, resetConversations, setInitialConversation } from '../../src/core/chat/conversation.store';
import { IMAGE_CHECK_TIMEOUT_MS, imageCover } from '../../src/core/chat/image-safety';
import { dispatchEvent } from '../../src/core/chat/realtime';
import { readConfig } from '../../src/server/config';
import {
  createFakeScorer, createModelScorer, decodeForModel, EXPLICIT_THRESHOLD, explicitScore, MODEL_SIZE, scoreImage,
} from '../../src/server/safety/images';
import type { ChatMessage, ImageSafety } from '../../src/shared/chat.contract';
import { view } from '../helpers/chat-fixtures';
import { bombPng } from '../helpers/images';

const solid = (width: number, height: number, background: string, format: 'png' | 'jpeg' | 'webp' = 'png') =>
  sharp({ create: { width, height, channels: 3, background } })[format]().toBuffer();

/** A benign test picture: a sky, a lawn and a sun. */
const landscape = () =>
  sharp({ create: { width: 640, height: 480, channels: 3, background: '#7ab8f5' } })
    .composite([
      { input: Buffer.from('<svg width="640" height="200"><rect width="640" height="200" fill="#3d8b37"/></svg>'), top: 280, left: 0 },
      { input: Buffer.from('<svg width="120" height="120"><circle cx="60" cy="60" r="50" fill="#ffd23f"/></svg>'), top: 40, left: 460 },
    ])
    .jpeg().toBuffer();

const message = (safety: ImageSafety, sender = 2, createdAt = 1_000): ChatMessage => ({
  id: 1, conversation_id: 1, sender_profile_id: sender, kind: 'image', text: null, gift: null, created_at: createdAt,
  image: { thumb: '/t', full: '/f', width: 10, height: 10, safety },
});

describe('what the viewer sees of a chat image', () => {
  it('blurs an explicit, a pending and an unchecked image for the recipient only', () => {
    expect(imageCover(message('explicit'), 1, false, 2_000)).toBe('explicit');
    expect(imageCover(message('pending'), 1, false, 2_000)).toBe('checking');
    expect(imageCover(message('unchecked'), 1, false, 2_000)).toBe('unchecked');
    expect(imageCover(message('ok'), 1, false, 2_000)).toBeNull();
    // The sender sees their own image as it is.
    expect(imageCover(message('explicit', 1), 1, false, 2_000)).toBeNull();
  });
  it('a check that takes too long reads as not checked, still blurred', () => {
    expect(imageCover(message('pending'), 1, false, 1_000 + IMAGE_CHECK_TIMEOUT_MS)).toBe('unchecked');
  });
  it('the member setting shows every image unblurred', () => {
    for (const safety of ['explicit', 'pending', 'unchecked'] as const) expect(imageCover(message(safety), 1, true, 2_000)).toBeNull();
  });
});

describe('the image_safety realtime event', () => {
  it('updates the image state of the loaded message only', () => {
    resetConversations();
    setInitialConversation(view(1, 2, [{ ...message('pending'), id: 5 }, { ...message('pending'), id: 6 }]));
    dispatchEvent({ type: 'image_safety', conversation_id: 1, message_id: 5, safety: 'explicit' });
    // A conversation that is not loaded is left alone.
    dispatchEvent({ type: 'image_safety', conversation_id: 99, message_id: 5, safety: 'ok' });
    expect($conversations.get()['1'].messages.map((m) => m.image?.safety)).toEqual(['explicit', 'pending']);
    expect($conversations.get()['99']).toBeUndefined();
  });
});

describe('the explicit-image scorer', () => {
  it('counts porn and hentai as explicit, not sexy alone', () => {
    expect(explicitScore({ drawing: 0, hentai: 0.3, neutral: 0.1, porn: 0.3, sexy: 0.3 })).toBeCloseTo(0.6);
    expect(explicitScore({ drawing: 0, hentai: 0, neutral: 0.1, porn: 0.05, sexy: 0.85 })).toBeLessThan(EXPLICIT_THRESHOLD);
  });

  it('decodes any format, grey or with alpha, to the model input', async () => {
    const grey = await sharp({ create: { width: 50, height: 900, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.2 } } }).greyscale().png().toBuffer();
    for (const body of [await solid(300, 200, '#345', 'jpeg'), await solid(3000, 20, '#abc', 'webp'), grey]) {
      expect((await decodeForModel(body)).length).toBe(MODEL_SIZE * MODEL_SIZE * 3);
    }
  });

  it('a zero-byte, corrupt or bomb image is a failed verdict, never a crash', async () => {
    const scorer = createFakeScorer();
    const png = Buffer.from(await solid(200, 200, '#123'));
    const truncated = png.subarray(0, png.length - 40);
    const noise = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));
    for (const body of [Buffer.alloc(0), Buffer.from('GIF89a…not really'), truncated, noise, await bombPng(30000)]) {
      expect(await scoreImage(scorer, body)).toMatchObject({ status: 'failed' });
    }
  });

  it('the fake scorer (test runs) calls a pure red image explicit and nothing else', async () => {
    const scorer = createFakeScorer();
    expect(await scoreImage(scorer, await solid(200, 200, '#f00'))).toMatchObject({ status: 'scored', explicit: true });
    expect(await scoreImage(scorer, await landscape())).toMatchObject({ status: 'scored', explicit: false });
  });

  it('the fake scorer cannot be switched on in production', () => {
    expect(() => readConfig({ NODE_ENV: 'production', IMAGE_SCORER: 'fake' })).toThrow(/never in production/);
    expect(() => readConfig({ DEPLOYMENT: 'production', IMAGE_SCORER: 'fake' })).toThrow(/never in production/);
    expect(readConfig({ NODE_ENV: 'test', IMAGE_SCORER: 'fake' }).imageScorer).toBe('fake');
    expect(readConfig({ NODE_ENV: 'production' }).imageScorer).toBe('model');
    expect(() => readConfig({ IMAGE_SCORER: 'off' })).toThrow(/IMAGE_SCORER/);
  });
});

describe('the nsfwjs model (in its worker thread)', () => {
  const scorer = createModelScorer();
  afterAll(() => scorer.close());

  it('scores benign generated images as not explicit, with five probabilities summing to 1', async () => {
    for (const body of [await landscape(), await solid(400, 300, '#2a6fdb', 'jpeg'), await solid(800, 1200, '#f4f1ea', 'webp')]) {
      const verdict = await scoreImage(scorer, body);
      expect(verdict.status).toBe('scored');
      if (verdict.status !== 'scored') continue;
      expect(verdict.explicit).toBe(false);
      const sum = Object.values(verdict.scores).reduce((a, b) => a + b, 0);
      expect(sum).toBeGreaterThan(0.99);
      expect(sum).toBeLessThan(1.01);
    }
  }, 60_000);

  it('keeps working after hostile input: wrong-sized pixels are refused by the worker, bad files never reach it', async () => {
    await expect(scorer.score(new Uint8Array(17))).rejects.toThrow(/expected/);
    expect(await scoreImage(scorer, await bombPng(30000))).toMatchObject({ status: 'failed' });
    expect(await scoreImage(scorer, Buffer.alloc(0))).toMatchObject({ status: 'failed' });
    expect(await scoreImage(scorer, await solid(100, 100, '#0a0'))).toMatchObject({ status: 'scored' });
  }, 60_000);

  it('huge dimensions within the pixel limit are scaled down, not refused', async () => {
    // 6000×6000: 36 megapixels (the upload limit is 40), decoded by sharp off the main thread.
    expect(await scoreImage(scorer, await solid(6000, 6000, '#cde', 'png'))).toMatchObject({ status: 'scored', explicit: false });
  }, 60_000);

  it('a worker that died is started again for the next image', async () => {
    await scorer.close();
    expect(await scoreImage(scorer, await solid(64, 64, '#888'))).toMatchObject({ status: 'scored' });
  }, 60_000);
});
