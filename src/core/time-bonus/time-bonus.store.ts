import { atom, computed } from 'nanostores';
import { DISMISS_KEYS, TIME_BONUS_POPUP_DELAY_MS, TIME_BONUS_SECONDS } from '../../shared/constants';
import { PAYMENTS_PATHS, type TimeBonus, type TimeBonusResponse } from '../../shared/payments.contract';
import { api, call } from '../api/client';
import { $user } from '../session/store';

/** The countdown ticks once a second (SPEC §9 "timer tick 1000 ms"). */
export const TIME_BONUS_TICK_MS = 1_000;

/**
 * SPEC §3 Time bonus: the discount code fields plus the deadline, in the device's clock
 * (the server's deadline moved by the skew measured when it answered).
 */
export interface TimeBonusState {
  bonus: TimeBonus;
  /** Device-clock milliseconds at which the countdown reaches 0. */
  endsAt: number;
}
export interface Countdown {
  hours: number;
  minutes: number;
  seconds: number;
}

/** The running time bonus, or null. */
export const $timeBonus = atom<TimeBonusState | null>(null);
/** Whole seconds left; updated every tick while a bonus runs. */
export const $timeBonusSecondsLeft = atom(0);
/** SPEC §3 isVisible. */
export const $timeBonusVisible = computed($timeBonus, (state) => state !== null);
/** SPEC §3 countdown (hours, minutes, seconds). */
export const $timeBonusCountdown = computed($timeBonusSecondsLeft, splitSeconds);
/** Whether the popup is open. */
export const $timeBonusModalOpen = atom(false);

/** Seconds → hours, minutes, seconds. */
export function splitSeconds(total: number): Countdown {
  const s = Math.max(0, Math.floor(total));
  return { hours: Math.floor(s / 3600), minutes: Math.floor((s % 3600) / 60), seconds: s % 60 };
}
/** Two digits each: "03:59:07" (SPEC §4). */
export function formatCountdown({ hours, minutes, seconds }: Countdown): string {
  return [hours, minutes, seconds].map((n) => String(n).padStart(2, '0')).join(':');
}

let ticker: ReturnType<typeof setInterval> | null = null;
function stopTicker() {
  if (ticker) clearInterval(ticker);
  ticker = null;
}
function tick() {
  const state = $timeBonus.get();
  if (!state) return stopTicker();
  const left = Math.ceil((state.endsAt - Date.now()) / 1000);
  if (left <= 0) return clearTimeBonus();
  $timeBonusSecondsLeft.set(left);
}

/**
 * Starts the countdown from a server answer. The deadline is the server's: the device clock is
 * corrected by the skew between `server_time` and now. A countdown that already runs is never
 * restarted; an answer without a bonus, an expired one, one more than 4 h after signup or for a
 * paid member clears it.
 */
export function startTimeBonus(answer: TimeBonusResponse, receivedAt = Date.now()) {
  const user = $user.get();
  const bonus = answer.time_bonus;
  if (!bonus?.isVisible || !user || user.paid_user) return clearTimeBonus();
  if ($timeBonus.get()) return;
  // Both in the server's clock: never more than 4 h after signup, whatever the answer says.
  const signupEnds = Date.parse(user.signup_date) + TIME_BONUS_SECONDS * 1000;
  const deadline = Number.isNaN(signupEnds) ? bonus.deadline : Math.min(bonus.deadline, signupEnds);
  const endsAt = deadline + (receivedAt - bonus.server_now);
  if (endsAt - Date.now() < 1000) return clearTimeBonus();
  $timeBonus.set({ bonus, endsAt });
  tick();
  ticker = setInterval(tick, TIME_BONUS_TICK_MS);
}

/** Ends the countdown (at 0, on logout, when paid): banner and popup go away. */
export function clearTimeBonus() {
  stopTicker();
  cancelTimeBonusPopup();
  $timeBonusModalOpen.set(false);
  $timeBonusSecondsLeft.set(0);
  if ($timeBonus.get() !== null) $timeBonus.set(null);
}

/** GET the member's time bonus (on login and on page start when the page did not bring it). */
export async function loadTimeBonus(): Promise<void> {
  if ($timeBonus.get()) return;
  const answer = await call(() => api.get(PAYMENTS_PATHS.timeBonus.replace(/^\/api\//, '')).json<TimeBonusResponse>());
  startTimeBonus(answer);
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'>;
function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** A member who typed within this long is still typing: the popup waits for a pause this long. */
export const TYPING_PAUSE_MS = 4_000;
let lastTypedAt = Number.NEGATIVE_INFINITY;
/** Notes a keystroke in a text field (the members' shell listens for them). */
export function noteTyping(now = Date.now()) {
  lastTypedAt = now;
}
/** Whether a text field has the focus and was typed in within TYPING_PAUSE_MS. */
export function isTyping(active: Element | null, now = Date.now()): boolean {
  if (!active) return false;
  const tag = active.tagName;
  const type = (active as HTMLInputElement).type;
  const field = tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'range'].includes(type)) || (active as HTMLElement).isContentEditable === true;
  return field && now - lastTypedAt < TYPING_PAUSE_MS;
}

let popupTimer: ReturnType<typeof setTimeout> | null = null;
/**
 * The popup comes 40 s after entering the members area, only while a bonus runs, the member has
 * 0 credits and never closed it before (SPEC §4). It never takes the focus from a member who is typing:
 * it waits for a pause.
 */
export function scheduleTimeBonusPopup(storage: Storage | null = browserStorage(), delay = TIME_BONUS_POPUP_DELAY_MS) {
  cancelTimeBonusPopup();
  popupTimer = setTimeout(() => {
    popupTimer = null;
    const user = $user.get();
    if (!$timeBonus.get() || !user || user.credits !== 0) return;
    if (storage?.getItem(DISMISS_KEYS.timeBonusModal)) return;
    if (typeof document !== 'undefined' && isTyping(document.activeElement)) {
      scheduleTimeBonusPopup(storage, TYPING_PAUSE_MS);
      return;
    }
    $timeBonusModalOpen.set(true);
  }, delay);
}
/** Leaving the members area cancels a popup that has not shown yet. */
export function cancelTimeBonusPopup() {
  if (popupTimer) clearTimeout(popupTimer);
  popupTimer = null;
}
/** Closing the popup stores when, so it never comes back. */
export function dismissTimeBonusModal(storage: Storage | null = browserStorage(), now = Date.now()) {
  $timeBonusModalOpen.set(false);
  try {
    storage?.setItem(DISMISS_KEYS.timeBonusModal, String(now));
  } catch {
    // Storage disabled: closed for this page only.
  }
}

// Logout or a first purchase ends the bonus at once (also in other tabs, through the realtime events).
$user.listen((user) => {
  if (!user || user.paid_user) clearTimeBonus();
});
