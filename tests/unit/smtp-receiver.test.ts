import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpReceiver } from '../helpers/smtp';

// The tests' SMTP server (tests/helpers/smtp.ts): the sender hears "accepted" only once onMessage has settled.
describe('smtpReceiver', () => {
  const received: string[][] = [];
  let release: (() => void) | null = null;
  const server = smtpReceiver(async (to) => {
    if (to.includes('held@example.com')) await new Promise<void>((resolve) => { release = resolve; });
    if (to.includes('broken@example.com')) throw new Error('mailbox broken');
    received.push(to);
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const send = (to: string) => nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true }).sendMail({ from: 'a@example.com', to, subject: 'Hi', text: 'Hello' });

  it('answers at once for a plain message, with its recipients', async () => {
    await send('Someone@example.com');
    expect(received).toEqual([['Someone@example.com']]);
  });

  it('holds the answer until an async onMessage settles', async () => {
    let answered = false;
    const sending = send('held@example.com').then(() => { answered = true; });
    await expect.poll(() => release !== null).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    release?.();
    await sending;
    expect(received.at(-1)).toEqual(['held@example.com']);
  });

  it('answers an SMTP error when onMessage fails', async () => {
    await expect(send('broken@example.com')).rejects.toThrow(/mailbox broken/);
  });
});
