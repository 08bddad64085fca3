// Where e-mail goes: an SMTP server (SMTP_URL) through nodemailer, behind a small interface so the
// services never see the library and a process builds one transport (pooled connections).
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends one message; throws MailFailure when the server refuses it or cannot be reached in time. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A failed attempt: `permanent` when the server refused the message (5xx): retrying would not help. */
export class MailFailure extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

/** The SMTP server of the configuration. */
export function smtpMailer(config: MailConfig): Mailer {
  const transport = nodemailer.createTransport(
    {
      url: config.smtpUrl,
      connectionTimeout: config.timeoutMs,
      greetingTimeout: config.timeoutMs,
      socketTimeout: config.timeoutMs,
    },
    // every message is from the configuration's address
    { from: config.from },
  );
  return {
    async send(m) {
      try {
        await transport.sendMail({ to: m.to, subject: m.subject, text: m.text });
      } catch (err) {
        const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
        const code = e.responseCode;
        const what = e.response ?? e.message ?? String(err);
        throw new MailFailure(
          `${code ? `SMTP ${code}: ` : e.code ? `${e.code}: ` : ''}${what}`.replace(/\s+/g, ' ').slice(0, 500),
          code !== undefined && code >= 500 && code < 600,
        );
      }
    },
    close: () => transport.close(),
  };
}
