import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, call } from '../../src/core/api/client';
import { $pendingActions, runAction } from '../../src/core/toast/action.store';
import { $toasts, clearToasts } from '../../src/core/toast/toast.store';

const TEXTS = { retrying: 'Retrying…', saving: 'Saving…', saved: 'Saved.', failed: 'Failed.', tryAgain: 'Try again' };
let statuses: number[];
let calls: number;
const save = () => call(() => api.put('account-settings.php', { json: { invisible: true } }).json());

beforeEach(() => {
  clearToasts();
  calls = 0;
  vi.stubGlobal('Request', class extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' && input.startsWith('/') ? new URL(input, 'http://localhost') : input, init);
    }
  });
  vi.stubGlobal('fetch', async () => {
    const status = statuses[Math.min(calls++, statuses.length - 1)];
    const body = status < 400 ? { ok: true } : { error: 'invalid', message: 'Not like that.' };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('document', { getElementById: () => ({ dataset: TEXTS }) });
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const shown = () => $toasts.get().map((t) => `${t.tone}: ${t.text}${t.action ? ` [${t.action.label}]` : ''}`);

describe('member actions', () => {
  it('say "Saving…" at once, block a second run meanwhile, and end in a success toast', async () => {
    statuses = [200];
    const first = runAction('invisible', save);
    expect($pendingActions.get().invisible).toBe(true);
    expect(shown()).toEqual(['info: Saving…']);
    expect(await runAction('invisible', save)).toMatchObject({ ok: false });
    expect(await first).toEqual({ ok: true, value: { ok: true } });
    expect(calls).toBe(1);
    expect($pendingActions.get().invisible).toBe(false);
    expect(shown()).toEqual(['success: Saved.']);
  });

  it('fail at once on a 4xx with the server message and a Try again that runs the action again', async () => {
    statuses = [400, 200];
    const outcome = await runAction('invisible', save);
    expect(outcome.ok).toBe(false);
    expect(calls).toBe(1);
    expect(shown()).toEqual(['error: Not like that. [Try again]']);
    $toasts.get()[0].action?.run();
    await vi.waitFor(() => expect(shown()).toEqual(['success: Saved.']));
    expect(calls).toBe(2);
  });

  it('after the retries of a server failure, end in a failure toast with Try again (never silently)', async () => {
    statuses = [503];
    const outcome = runAction('invisible', save, { success: 'Invisible now.' });
    await vi.advanceTimersByTimeAsync(12_000);
    expect((await outcome).ok).toBe(false);
    expect(calls).toBe(6);
    expect(shown()).toEqual(['error: Failed. [Try again]']);
    expect($pendingActions.get().invisible).toBe(false);
  });

  it('leave the success to the screen when asked (a sent message shows itself)', async () => {
    statuses = [200];
    await runAction('send', save, { success: false, savingToast: false });
    expect(shown()).toEqual([]);
  });
});
