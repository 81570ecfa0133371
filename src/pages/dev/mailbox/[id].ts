import type { APIRoute } from 'astro';

/** The HTML version of one development mail, as the recipient would see it. */
export const GET: APIRoute = async ({ params, locals }) => {
  const id = Number(params.id);
  if (locals.services.app.config.production || !Number.isSafeInteger(id)) return new Response(null, { status: 404 });
  const mail = await locals.services.app.db.db.selectFrom('mails').select('html').where('id', '=', id).executeTakeFirst();
  if (!mail) return new Response(null, { status: 404 });
  return new Response(mail.html, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:" } });
};
