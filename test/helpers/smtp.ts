/**
 * A real SMTP server (npm smtp-server) on a loopback port that keeps what it
 * receives, for tests of e-mail sign-in and digests.
 */
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** the plain-text body, quoted-printable decoded */
  text: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** resolves with the next message to `to` (or one already received and not yet taken) */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** makes the server refuse every message until called with false */
  refuse(on: boolean): void;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    const m = soft[i] === "=" ? /^[0-9A-F]{2}$/i.exec(soft.slice(i + 1, i + 3)) : null;
    if (m) {
      bytes.push(parseInt(m[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A header's RFC 2047 encoded words ("=?UTF-8?Q?Inicio_de_sesi=C3=B3n?=") as the text they stand for. */
function decodeWords(h: string): string {
  return h
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toUpperCase() === "B" ? Buffer.from(data, "base64").toString("utf8") : decodeQuotedPrintable(data.replace(/_/g, " ")),
    );
}

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(split + 4);
  const header = (n: string) => new RegExp(`^${n}:\\s*(.*)$`, "im").exec(head)?.[1] ?? "";
  const enc = header("Content-Transfer-Encoding").toLowerCase();
  const text = enc === "quoted-printable" ? decodeQuotedPrintable(body) : enc === "base64" ? Buffer.from(body, "base64").toString("utf8") : body;
  return { from, to, raw, subject: decodeWords(header("Subject")), text: text.replace(/\r\n/g, "\n") };
}

export async function startSmtpSink(opts: { user?: string; pass?: string } = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: Array<{ to: string; resolve: (m: ReceivedMail) => void }> = [];
  let refusing = false;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: !opts.user,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) cb(null, { user: auth.username });
      else cb(new Error("bad credentials"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refusing) {
          const e = new Error("mailbox unavailable") as Error & { responseCode: number };
          e.responseCode = 550;
          return cb(e);
        }
        const to = session.envelope.rcptTo.map((r) => r.address);
        const m = parse(Buffer.concat(chunks).toString("utf8"), session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to);
        messages.push(m);
        const w = waiters.findIndex((x) => to.includes(x.to));
        if (w >= 0) {
          taken.add(m);
          waiters.splice(w, 1)[0]!.resolve(m);
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  const cred = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? "")}@` : "";
  return {
    url: `smtp://${cred}127.0.0.1:${port}`,
    messages,
    next(to, timeoutMs = 10_000) {
      const ready = messages.find((m) => !taken.has(m) && m.to.includes(to));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ to, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    refuse(on) {
      refusing = on;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
