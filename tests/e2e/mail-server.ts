import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SMTPServer } from 'smtp-server';
import { smtpReceiver } from '../helpers/smtp';

/** E2E_MAIL_DIR lets a second run (another E2E_PORT) keep its own mail beside the first. */
export const MAIL_DIR = process.env.E2E_MAIL_DIR ?? 'test-results/e2e-mail';
export const SMTP_PORT = Number(process.env.E2E_SMTP_PORT ?? 2525);

/** A real SMTP server for the e2e run: each message is written to MAIL_DIR as JSON {to, raw}. */
export function startMailServer(): Promise<SMTPServer> {
  rmSync(MAIL_DIR, { recursive: true, force: true });
  mkdirSync(MAIL_DIR, { recursive: true });
  let n = 0;
  const server = smtpReceiver((to, raw) => {
    writeFileSync(path.join(MAIL_DIR, `${Date.now()}-${n++}.json`), JSON.stringify({ to: to.map((a) => a.toLowerCase()), raw }));
  });
  return new Promise((resolve) => server.listen(SMTP_PORT, '127.0.0.1', () => resolve(server)));
}

/** Decodes quoted-printable soft breaks and escapes so links can be read from the raw message. */
function decode(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Waits for the newest mail to an address whose text contains `contains`, and returns the first matching link. */
export async function linkFromMail(address: string, pathPart: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = readdirSync(MAIL_DIR).sort().reverse();
    for (const file of files) {
      const mail = JSON.parse(readFileSync(path.join(MAIL_DIR, file), 'utf8')) as { to: string[]; raw: string };
      if (!mail.to.includes(address.toLowerCase())) continue;
      const match = decode(mail.raw).match(new RegExp(`https?://[^\\s"<>]*${pathPart.replace(/[.?]/g, '\\$&')}[^\\s"<>]*`));
      if (match) return match[0].replace(/&amp;/g, '&');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail to ${address} with ${pathPart}`);
}
