import nodemailer, { type Transporter } from 'nodemailer';
import { errorMessage } from '../errors.js';
import type { EmailMessage } from '../render/index.js';
import { DeliveryError } from './errors.js';
import type { Transport } from './sender.js';

/**
 * Mail through the SMTP relay in SMTP_URL. A 5xx answer or a rejected address is permanent; 4xx and
 * connection problems are retried.
 */
export class EmailSender implements Transport<EmailMessage> {
  readonly name: string;
  readonly #transport: Transporter;
  readonly #from: string;
  readonly #to: string[];

  constructor(name: string, options: { smtpUrl: string; from: string; to: string[]; ignoreTLS?: boolean }) {
    this.name = name;
    this.#from = options.from;
    this.#to = options.to;
    const url = new URL(options.smtpUrl);
    this.#transport = nodemailer.createTransport({
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
      secure: url.protocol === 'smtps:',
      ...(url.username
        ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
        : {}),
      ignoreTLS: options.ignoreTLS ?? url.searchParams.get('ignoreTLS') === 'true',
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  async post(message: EmailMessage): Promise<void> {
    const { subject, html, text } = message;
    try {
      const info = await this.#transport.sendMail({ from: this.#from, to: this.#to, subject, html, text });
      const rejected = info.rejected ?? [];
      if (rejected.length > 0) {
        throw new DeliveryError(this.name, `the relay rejected ${rejected.map(String).join(', ')}`, {
          permanent: true,
        });
      }
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      throw this.#failure(err);
    }
  }

  #failure(err: unknown): DeliveryError {
    const code = (err as { responseCode?: unknown }).responseCode;
    const response = String((err as { response?: unknown }).response ?? '').slice(0, 120);
    if (typeof code === 'number') {
      const what = `SMTP ${code}${response ? ` (${response})` : ''}`;
      return new DeliveryError(this.name, what, { permanent: code >= 500 });
    }
    const errCode = (err as { code?: unknown }).code;
    return new DeliveryError(
      this.name,
      `SMTP relay unreachable (${typeof errCode === 'string' ? errCode : errorMessage(err)})`,
    );
  }

  close(): void {
    this.#transport.close();
  }
}
