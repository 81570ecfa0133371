import { SMTPServer } from 'smtp-server';

/** A real SMTP server that hands every message it receives, as raw text with its recipients, to `onMessage`. */
export function smtpReceiver(onMessage: (to: string[], raw: string) => void): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        onMessage(session.envelope.rcptTo.map((r) => r.address), Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
}
