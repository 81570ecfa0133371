import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $user } from '../../src/core/session/store';
import {
  $timeBonus, $timeBonusCountdown, $timeBonusModalOpen, $timeBonusVisible, clearTimeBonus, dismissTimeBonusModal, formatCountdown,
  loadTimeBonus, noteTyping, scheduleTimeBonusPopup, cancelTimeBonusPopup, startTimeBonus, TYPING_PAUSE_MS,
} from '../../src/core/time-bonus/time-bonus.store';
import { DISMISS_KEYS, TIME_BONUS_POPUP_DELAY_MS, TIME_BONUS_SECONDS } from '../../src/shared/constants';
import type { DiscountCode, TimeBonusResponse } from '../../src/shared/payments.contract';
import { user } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

const SIGNUP = Date.parse('2026-11-23T10:00:00Z');
const DEADLINE = SIGNUP + TIME_BONUS_SECONDS * 1000;
const DISCOUNT: DiscountCode = {
  code: 'TB-1', country: null, user_id: 1, expires: new Date(DEADLINE).toISOString(), value_percentage: 25, currency: null,
  minimum_order_value: 0, status: 'active', validity: 'once-per-user', expired: false, paymentmethods: [], percentage: 25,
};
/** The server's answer, sent at server time `serverNow`. */
const answer = (serverNow: number, deadline = DEADLINE): TimeBonusResponse =>
  ({ time_bonus: { isVisible: true, deadline, server_now: serverNow, discount: DISCOUNT } });
const shown = () => formatCountdown($timeBonusCountdown.get());

function memoryStorage() {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

beforeEach(() => {
  vi.useFakeTimers();
  clearTimeBonus();
  $user.set(user({ signup_date: new Date(SIGNUP).toISOString(), credits: 0 }));
});
afterEach(() => {
  clearTimeBonus();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('time bonus countdown', () => {
  it('counts down each second as HH:MM:SS from the server deadline', () => {
    vi.setSystemTime(SIGNUP + 60_000);
    startTimeBonus(answer(SIGNUP + 60_000));
    expect($timeBonusVisible.get()).toBe(true);
    expect(shown()).toBe('03:59:00');
    vi.advanceTimersByTime(1_000);
    expect(shown()).toBe('03:58:59');
    vi.advanceTimersByTime(3_599_000);
    expect(shown()).toBe('02:59:00');
  });

  it('corrects a device clock that is off, using the server time in the answer', () => {
    // The device is 2 hours ahead of the server: the countdown still shows what the server says is left.
    vi.setSystemTime(SIGNUP + 60_000 + 7_200_000);
    startTimeBonus(answer(SIGNUP + 60_000));
    expect(shown()).toBe('03:59:00');
    // A device 30 minutes behind.
    clearTimeBonus();
    vi.setSystemTime(SIGNUP + 3_600_000 - 1_800_000);
    startTimeBonus(answer(SIGNUP + 3_600_000));
    expect(shown()).toBe('03:00:00');
  });

  it('clears itself at 0', () => {
    vi.setSystemTime(DEADLINE - 3_000);
    startTimeBonus(answer(DEADLINE - 3_000));
    expect(shown()).toBe('00:00:03');
    vi.advanceTimersByTime(2_000);
    expect(shown()).toBe('00:00:01');
    vi.advanceTimersByTime(1_000);
    expect($timeBonus.get()).toBeNull();
    expect($timeBonusVisible.get()).toBe(false);
  });

  it('never starts when 4 hours have passed since signup, whatever the answer says', () => {
    vi.setSystemTime(DEADLINE + 1_000);
    startTimeBonus(answer(DEADLINE + 1_000, DEADLINE + 3_600_000));
    expect($timeBonus.get()).toBeNull();
  });

  it('is not restarted while running', () => {
    vi.setSystemTime(SIGNUP + 60_000);
    startTimeBonus(answer(SIGNUP + 60_000));
    vi.advanceTimersByTime(10_000);
    startTimeBonus(answer(SIGNUP + 70_000, DEADLINE + 3_600_000));
    expect(shown()).toBe('03:58:50');
  });

  it('clears on logout and when the member becomes premium', () => {
    vi.setSystemTime(SIGNUP + 60_000);
    startTimeBonus(answer(SIGNUP + 60_000));
    $user.set(user({ signup_date: new Date(SIGNUP).toISOString(), paid_user: true }));
    expect($timeBonus.get()).toBeNull();
    $user.set(user({ signup_date: new Date(SIGNUP).toISOString() }));
    startTimeBonus(answer(SIGNUP + 60_000));
    expect($timeBonus.get()).not.toBeNull();
    $user.set(null);
    expect($timeBonus.get()).toBeNull();
  });

  it('does not start for a paid member or without a bonus', () => {
    vi.setSystemTime(SIGNUP + 60_000);
    startTimeBonus({ time_bonus: null });
    expect($timeBonus.get()).toBeNull();
    $user.set(user({ signup_date: new Date(SIGNUP).toISOString(), paid_user: true }));
    startTimeBonus(answer(SIGNUP + 60_000));
    expect($timeBonus.get()).toBeNull();
  });

  it('is loaded from the time-bonus endpoint', async () => {
    vi.setSystemTime(SIGNUP + 600_000);
    const api = fakeApi();
    api.expectRequest('/api/time-bonus.php').andRespond(200, answer(SIGNUP + 600_000));
    await loadTimeBonus();
    expect(shown()).toBe('03:50:00');
    expect(api.unexpected).toEqual([]);
  });
});

describe('time bonus popup', () => {
  beforeEach(() => {
    vi.setSystemTime(SIGNUP + 60_000);
    startTimeBonus(answer(SIGNUP + 60_000));
  });

  it('opens 40 s after entering the members area when credits are 0', () => {
    const storage = memoryStorage();
    scheduleTimeBonusPopup(storage);
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS - 1);
    expect($timeBonusModalOpen.get()).toBe(false);
    vi.advanceTimersByTime(1);
    expect($timeBonusModalOpen.get()).toBe(true);
  });

  it('stays closed when the member has credits, dismissed it before, or left the members area', () => {
    const storage = memoryStorage();
    $user.set({ ...($user.get() as NonNullable<ReturnType<typeof $user.get>>), credits: 20 });
    scheduleTimeBonusPopup(storage);
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS);
    expect($timeBonusModalOpen.get()).toBe(false);

    $user.set({ ...($user.get() as NonNullable<ReturnType<typeof $user.get>>), credits: 0 });
    storage.setItem(DISMISS_KEYS.timeBonusModal, '1');
    scheduleTimeBonusPopup(storage);
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS);
    expect($timeBonusModalOpen.get()).toBe(false);

    scheduleTimeBonusPopup(memoryStorage());
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS - 5_000);
    cancelTimeBonusPopup();
    vi.advanceTimersByTime(10_000);
    expect($timeBonusModalOpen.get()).toBe(false);
  });

  it('closing stores the dismissal time under hide-time-bonus-modal', () => {
    const storage = memoryStorage();
    scheduleTimeBonusPopup(storage);
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS);
    dismissTimeBonusModal(storage, 1_234);
    expect($timeBonusModalOpen.get()).toBe(false);
    expect(storage.data.get('hide-time-bonus-modal')).toBe('1234');
  });

  it('never takes the focus from a member who is typing: it waits for a pause', () => {
    const field = { tagName: 'TEXTAREA' };
    vi.stubGlobal('document', { activeElement: field });
    try {
      scheduleTimeBonusPopup(memoryStorage());
      vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS - 1_000);
      noteTyping(Date.now());
      vi.advanceTimersByTime(1_000);
      expect($timeBonusModalOpen.get()).toBe(false);
      // Still typing a moment later: it waits again.
      vi.advanceTimersByTime(TYPING_PAUSE_MS - 1_500);
      noteTyping(Date.now());
      vi.advanceTimersByTime(1_500);
      expect($timeBonusModalOpen.get()).toBe(false);
      // A pause: it opens.
      vi.advanceTimersByTime(TYPING_PAUSE_MS);
      expect($timeBonusModalOpen.get()).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('does not open once the bonus has ended', () => {
    scheduleTimeBonusPopup(memoryStorage());
    clearTimeBonus();
    vi.advanceTimersByTime(TIME_BONUS_POPUP_DELAY_MS);
    expect($timeBonusModalOpen.get()).toBe(false);
  });
});
