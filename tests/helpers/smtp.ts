import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server that hands every message it receives, as raw text with its recipients, to `onMessage`.
 * The sender hears "accepted" once `onMessage` has settled: an async one can hold a message's answer back
 * (a mail server that hangs), one that fails answers an SMTP error.
 */
export function smtpReceiver(onMessage: (to: string[], raw: string) => void | Promise<void>): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        Promise.resolve()
          .then(() => onMessage(to, Buffer.concat(chunks).toString('utf8')))
          .then(() => callback(), (err: Error) => callback(err));
      });
    },
  });
}
