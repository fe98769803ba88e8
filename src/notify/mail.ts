/**
 * Outgoing e-mail (sign-in links, watch digests): one nodemailer transport per
 * gateway, from SMTP_URL. Without SMTP_URL the message is written to the log
 * instead, so the operator of a laptop instance can still sign in.
 *
 *   await sendMail(gw, { to: "op@example.org", subject: "Sign in", text: "..." });
 */
import type nodemailer from "nodemailer";
import type { Core } from "../core/core.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface MailResult {
  /** "smtp" when handed to the mail server, "log" when written to the log */
  via: "smtp" | "log";
  messageId?: string;
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

declare module "../core/services.ts" {
  interface Services {
    /** the SMTP transport, made on the first message */
    mail: { transport: Transport | null };
  }
}

async function transport(gw: Core): Promise<Transport> {
  const m = gw.services.mail;
  if (!m.transport) {
    // Loaded on the first message: most instances never send mail, and start faster without it. Its CommonJS
    // build: the ES module build's imports of node:http, node:https, node:zlib and node:tls would be hoisted
    // to the top of the executable's bundle and loaded at every start (src/lib/builtins.ts).
    const mailer = require("nodemailer") as typeof nodemailer;
    // Short timeouts: a sign-in request waits for this, and a dead relay must not hang it.
    m.transport = mailer.createTransport(gw.config.smtpUrl!, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as object);
  }
  return m.transport;
}

export function mailFrom(gw: Core): string {
  return gw.config.mailFrom ?? `svc-gateway@${gw.config.instance}.invalid`;
}

/** Sends one plain-text message; throws when the mail server refuses it. */
export async function sendMail(gw: Core, mail: Mail): Promise<MailResult> {
  if (!gw.config.smtpUrl) {
    gw.log.info("mail", `SMTP_URL is not set, so this message was not sent; here it is:\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}`);
    return { via: "log" };
  }
  const info = await (await transport(gw)).sendMail({ from: mailFrom(gw), to: mail.to, subject: mail.subject, text: mail.text });
  return { via: "smtp", messageId: info.messageId };
}
