// The operator console's calls (framework-free; the islands render, these talk to /api/admin).
import { ADMIN_PATHS, type StatMetric } from '../../shared/admin.contract';
import { api, call } from '../api/client';

export interface StatTable {
  metric: StatMetric;
  columns: string[];
  rows: (string | number)[][];
}

const send = <T>(path: string, json: unknown, method: 'post' | 'patch' = 'post') =>
  call(() => api[method](path, { json, retry: 0 }).json<T>());

export const startEnrolment = () => send<{ secret: string; uri: string; qr_svg: string }>(ADMIN_PATHS.enrol, {});
export const confirmEnrolment = (code: string) => send<{ recovery_codes: string[] }>(ADMIN_PATHS.confirm, { code });
export const verifyCode = (input: { code: string } | { recovery_code: string }) => send<{ verified: true }>(ADMIN_PATHS.verify, input);
export const memberAction = (body: Record<string, unknown>) => send<{ done: string; result: unknown }>(ADMIN_PATHS.memberAction, body);
export const safetyAction = (body: Record<string, unknown>) => send<{ status: string; signals: number }>(ADMIN_PATHS.safetyAction, body);
export const saveFictional = (body: Record<string, unknown>) => send<{ profile: { id: number } }>(ADMIN_PATHS.fictional, body);
export const answerAsProfile = (conversationId: number, text: string, clientId: string) =>
  send<{ message: { id: number }; next: number | null }>(ADMIN_PATHS.inboxReply, { conversation_id: conversationId, text, client_id: clientId });
/** Renews (or gives back) this operator's claim on a conversation. */
export const claimConversation = (conversationId: number, release = false) =>
  send<{ mine: boolean; expires_at: number }>(ADMIN_PATHS.inboxClaim, { conversation_id: conversationId, release });
export const saveInboxNotes = (conversationId: number, notes: string) =>
  send<{ notes: string | null; updated_at: number }>(ADMIN_PATHS.inboxNotes, { conversation_id: conversationId, notes });
export const createDiscount = (body: Record<string, unknown>) => send<{ discount: { id: number } }>(ADMIN_PATHS.discounts, body);
export const setDiscountStatus = (id: number, status: 'active' | 'inactive', reason: string) =>
  send<{ id: number; status: string }>(ADMIN_PATHS.discounts, { id, status, reason }, 'patch');

/** One dashboard figure for the UTC days from..to. */
export const loadStat = (metric: StatMetric, from: string, to: string) =>
  call(() => api.get(ADMIN_PATHS.stats, { searchParams: { metric, from, to } }).json<StatTable>());
/** Where the CSV of a figure downloads from. */
export const statCsvUrl = (metric: StatMetric, from: string, to: string) => `/api/${ADMIN_PATHS.stats}?${new URLSearchParams({ metric, from, to, format: 'csv' })}`;
