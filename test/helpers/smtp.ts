import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface FakeSmtp {
  url: string;
  mails: ParsedMail[];
  /** Make the next N messages fail with this SMTP reply code. */
  reject(count: number, code: number, message?: string): void;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) that parses what it receives with mailparser. */
export async function startFakeSmtp(): Promise<FakeSmtp> {
  const mails: ParsedMail[] = [];
  let rejections: Array<{ code: number; message: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'tester' });
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const rejection = rejections.shift();
      simpleParser(stream)
        .then((mail) => {
          if (rejection) {
            const err = Object.assign(new Error(rejection.message), { responseCode: rejection.code });
            callback(err);
            return;
          }
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://tester:s3cret-smtp-pass@127.0.0.1:${port}?ignoreTLS=true`,
    mails,
    reject(count, code, message = 'rejected') {
      rejections = Array.from({ length: count }, () => ({ code, message }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
