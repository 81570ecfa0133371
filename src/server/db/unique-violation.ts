/**
 * Whether a failed write broke a unique index, on PostgreSQL or SQLite. `needles` narrow it to one
 * index: PostgreSQL's message names the index, SQLite's names the columns ("payments.user_id, …").
 */
export function isUniqueViolation(err: unknown, ...needles: string[]): boolean {
  const e = err as { code?: string; message?: string } | null;
  const message = e?.message ?? '';
  const unique = e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(message);
  return unique && (needles.length === 0 || needles.some((n) => message.includes(n)));
}
