import { atom } from 'nanostores';
import type { ChatMessage } from '../../shared/chat.contract';
import type { TextFlag } from '../../shared/safety.contract';

/**
 * The recipient's side of the chat safety prompts (issue 26): "Does this bother you?" under a
 * flagged message until it is reported or found fine (remembered in this browser), and the money
 * safety tip once per conversation (under its first money request).
 */
const STORAGE_KEY = 'kindred.safety.settled';
const MAX_REMEMBERED = 500;

function load(): number[] {
  try {
    const raw = globalThis.localStorage?.getItem(STORAGE_KEY);
    const ids = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
  } catch {
    return [];
  }
}

/** Messages whose prompt the member answered (reported, or "It's fine"). */
export const $settledPrompts = atom<ReadonlySet<number>>(new Set(load()));

export function settlePrompt(messageId: number) {
  const ids = [...$settledPrompts.get(), messageId].slice(-MAX_REMEMBERED);
  $settledPrompts.set(new Set(ids));
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify(ids));
  } catch {
    // Private mode: remembered for this visit only.
  }
}

/** The flags a prompt shows under a received message, or none. */
export function promptFlags(message: ChatMessage, settled: ReadonlySet<number>): TextFlag[] {
  return message.flags?.length && !settled.has(message.id) ? message.flags : [];
}

/** The message the money safety tip goes under: the conversation's first received money request. */
export function moneyTipMessage(messages: ChatMessage[], ownProfileId: number): number | null {
  return messages.find((m) => m.sender_profile_id !== ownProfileId && m.flags?.includes('money_request'))?.id ?? null;
}
