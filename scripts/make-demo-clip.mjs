// Writes public/landers/demo-loop.webm: a 6 s seamless loop drawn on a canvas and recorded by Debian's Chromium (no ffmpeg needed).
// Run: node scripts/make-demo-clip.mjs
import { chromium } from '@playwright/test';
import { writeFileSync } from 'node:fs';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const page = await browser.newPage();
const b64 = await page.evaluate(async () => {
  const c = document.createElement('canvas'); c.width = 640; c.height = 360; document.body.append(c);
  const g = c.getContext('2d');
  const stream = c.captureStream(24);
  const rec = new MediaRecorder(stream, { mimeType: 'video/webm;codecs=vp9', videoBitsPerSecond: 250_000 });
  const chunks = []; rec.ondataavailable = (e) => chunks.push(e.data);
  const start = performance.now(); const D = 6000;
  rec.start();
  await new Promise((resolve) => {
    function frame() {
      const t = (performance.now() - start) / D; // 0..1, loops seamlessly
      const a = t * Math.PI * 2;
      const grd = g.createLinearGradient(0, 0, 640, 360);
      grd.addColorStop(0, `hsl(${330 + 20 * Math.sin(a)} 60% 18%)`); grd.addColorStop(1, `hsl(${10 + 15 * Math.cos(a)} 70% 45%)`);
      g.fillStyle = grd; g.fillRect(0, 0, 640, 360);
      for (let i = 0; i < 14; i++) {
        const p = a + i * 0.9;
        g.beginPath(); g.fillStyle = `rgba(255,${180 + (i % 3) * 20},${160 + (i % 4) * 20},0.16)`;
        g.arc(320 + 260 * Math.sin(p * 1 + i), 180 + 130 * Math.cos(p * 1 + i * 2), 30 + (i % 5) * 14, 0, 7); g.fill();
      }
      if (performance.now() - start < D) requestAnimationFrame(frame); else resolve();
    }
    frame();
  });
  rec.stop(); await new Promise((r) => (rec.onstop = r));
  const buf = await new Blob(chunks).arrayBuffer();
  let s = ''; const u = new Uint8Array(buf); for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
  return btoa(s);
});
writeFileSync('public/landers/demo-loop.webm', Buffer.from(b64, 'base64'));
await browser.close();
