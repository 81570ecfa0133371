// The nsfwjs model in a worker thread (docs/safety-images.md): inference is synchronous CPU work
// (~60 ms an image on the WASM backend), so it never runs on the thread answering requests.
// Plain JavaScript importing only npm packages: the same file runs under tsx, vitest and the
// bundled server (scripts/build-server.mjs copies it beside dist/server-main.mjs).
// It receives 224×224 RGB pixels already decoded by sharp; it never sees the uploaded bytes.
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

// tfjs and nsfwjs print hints on the console; the CLI's standard output carries JSON only.
for (const level of ['log', 'info', 'warn', 'debug']) console[level] = () => undefined;

const SIZE = 224;
const CLASSES = ['drawing', 'hentai', 'neutral', 'porn', 'sexy'];

async function loadModel() {
  const tf = await import('@tensorflow/tfjs');
  const nsfwjs = await import('nsfwjs');
  let backend = 'cpu';
  try {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    // The .wasm files ship inside the npm package: read from node_modules, never downloaded.
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    wasm.setWasmPaths(`${dist}${path.sep}`);
    if (await tf.setBackend('wasm')) backend = 'wasm';
  } catch {
    // The pure JavaScript backend is ~20 times slower but needs nothing else.
  }
  if (backend === 'cpu') await tf.setBackend('cpu');
  await tf.ready();
  // The model's weights are modules inside the nsfwjs package (dist/models/mobilenet_v2).
  const model = await nsfwjs.load('MobileNetV2', { size: SIZE });
  return { tf, model, backend };
}

let loading = null;

parentPort.on('message', async ({ id, pixels }) => {
  try {
    loading ??= loadModel();
    const { tf, model, backend } = await loading;
    const bytes = new Uint8Array(pixels);
    if (bytes.length !== SIZE * SIZE * 3) throw new Error(`expected ${SIZE * SIZE * 3} bytes of RGB pixels, got ${bytes.length}`);
    const input = tf.tensor3d(bytes, [SIZE, SIZE, 3], 'int32');
    try {
      const predictions = await model.classify(input, CLASSES.length);
      const scores = Object.fromEntries(CLASSES.map((name) => [name, 0]));
      for (const { className, probability } of predictions) scores[className.toLowerCase()] = Math.round(probability * 10000) / 10000;
      parentPort.postMessage({ id, scores, backend });
    } finally {
      input.dispose();
    }
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ?? err).slice(0, 200) });
  }
});
