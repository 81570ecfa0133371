import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, call, RETRY_STATUS_CODES, retryDelay } from '../../src/core/api/client';
import { $user, refreshUser } from '../../src/core/session/store';
import { $toasts, clearToasts } from '../../src/core/toast/toast.store';
import { HTTP_RETRIES } from '../../src/shared/constants';
import { user } from '../helpers/chat-fixtures';

let calls: number;
function answerWith(statuses: number[], body: unknown = { ok: true }) {
  calls = 0;
  vi.stubGlobal('fetch', async () => {
    const status = statuses[Math.min(calls++, statuses.length - 1)];
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
}
beforeEach(() => {
  clearToasts();
  vi.stubGlobal('Request', class extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' && input.startsWith('/') ? new URL(input, 'http://localhost') : input, init);
    }
  });
  vi.stubGlobal('document', { getElementById: () => ({ dataset: { retrying: 'Connection problem. Trying again…' } }) });
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the HTTP client', () => {
  it('retries 5 times, within about 10 s, only after 5xx and 429', async () => {
    expect(RETRY_STATUS_CODES).toEqual([429, 500, 502, 503, 504]);
    const total = Array.from({ length: HTTP_RETRIES }, (_, i) => retryDelay(i + 1)).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(5_000);
    expect(total).toBeLessThanOrEqual(10_000);
  });

  it('fails at once on a 4xx answer', async () => {
    for (const status of [400, 402, 403, 404, 408, 409, 413]) {
      answerWith([status], { error: 'nope', message: 'No.' });
      const result = call(() => api.get('thing.php').json());
      await expect(result).rejects.toMatchObject({ status });
      expect(calls).toBe(1);
    }
    expect($toasts.get()).toEqual([]);
  });

  it('retries a 503, says so in a toast, and clears the toast once it works', async () => {
    answerWith([503, 503, 200]);
    const result = call(() => api.get('thing.php').json());
    await vi.advanceTimersByTimeAsync(350);
    expect($toasts.get().map((t) => t.text)).toEqual(['Connection problem. Trying again…']);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(result).resolves.toEqual({ ok: true });
    expect(calls).toBe(3);
    expect($toasts.get()).toEqual([]);
  });

  it('gives up after 5 retries and clears the retrying toast', async () => {
    answerWith([502], { error: 'server_error', message: 'An error occured, please try again later.' });
    const result = call(() => api.get('thing.php').json());
    const settled = expect(result).rejects.toMatchObject({ status: 502, message: 'An error occured, please try again later.' });
    await vi.advanceTimersByTimeAsync(10_000);
    await settled;
    expect(calls).toBe(1 + HTTP_RETRIES);
    expect($toasts.get()).toEqual([]);
  });
});

describe('an ended session', () => {
  it('logs the member out when user.php no longer knows them', async () => {
    const reload = vi.fn();
    vi.stubGlobal('location', { reload });
    $user.set(user());
    answerWith([200], { user: null });
    await refreshUser();
    expect($user.get()).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
