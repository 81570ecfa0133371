import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOps } from '../../src/server/ops/ops';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// /healthz, /readyz and /metrics (src/server/ops): for balancers and Prometheus, the metrics closed to
// everyone without the token, readiness gone while the process drains.
const TOKEN = 'metrics-secret-for-tests';

for (const dialect of DIALECTS) {
  describe(`health, readiness and metrics (${dialect})`, () => {
    let t: TestApp;
    let server: Server;
    let ops: ReturnType<typeof createOps>;
    let base: string;
    beforeAll(async () => {
      t = await createTestApp(dialect, { METRICS_TOKEN: TOKEN });
      ops = createOps(t.app);
      // What main.ts does: ops first, then the rest of the server (here: a plain 404 for every other path).
      server = createServer((req, res) => {
        if (ops.handle(req, res)) return;
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      ops.close();
      await new Promise((r) => server.close(r));
      await t.close();
    });

    it('answers /healthz and /readyz with the database and storage checked', async () => {
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'alive' });
      const ready = await fetch(`${base}/readyz`);
      const body = await ready.json();
      expect(ready.status, JSON.stringify(body)).toBe(200);
      expect(body.status).toBe('ready');
      expect(JSON.stringify(body.checks)).toMatch(/database/);
      expect(JSON.stringify(body.checks)).toMatch(/storage/);
    });

    it('keeps /metrics closed without the token: the same 404 as any unknown path', async () => {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
        const res = await fetch(`${base}/metrics`, { headers });
        expect(res.status).toBe(404);
        expect(await res.text()).toBe('not found');
      }
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(text).toMatch(/^# HELP /m);
      expect(text).toMatch(/kindred_/);
    });
  });
}
