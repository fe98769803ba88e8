/**
 * A real F6FBB BBS (Debian `fbb`, xfbbd 7.0.11) for forwarding tests, in its
 * own directory, with its telnet port on a free TCP port.
 *
 * Pitfalls handled here (see shared/radio-lab.md): on first start xfbbd asks
 * "(Y/N)?" and loops forever on EOF, so it always runs as
 * `yes Y | xfbbd | head -c <cap>` in its own process group, killed as a group.
 * FBB forwards at start-up and then on every minute boundary. It imports
 * `mail/mail.in` within seconds, also while running. Over telnet, 0xFF is
 * doubled. It identifies itself to a partner it calls with its forward.sys
 * `V` line, sent at once and without a line end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { tmpDir } from "./tmp.ts";
import { startInProcess, type Running } from "./gateway.ts";
import { freePort } from "./ports.ts";

export interface FbbOptions {
  /** this BBS's call and hierarchical address */
  call: string;
  ha: string;
  /** the gateway: its BBS callsign and the TCP port FBB calls it on */
  gatewayCall: string;
  gatewayPort: number;
  /** what FBB forwards to the gateway: forward.sys B/F/G lines */
  routes?: string[];
  /** messages to import at start (mail.in format) */
  mailIn?: string;
  /** the telnet port to listen on (default: a free one) */
  telnetPort?: number;
  /**
   * Run xfbbd's clock this many times faster than real time (libfaketime,
   * Debian `faketime`, where installed), so its once-a-minute forwarding check
   * comes every 60/n s: a test then waits seconds, not minutes, for FBB to call.
   */
  clockSpeed?: number;
}

export interface StoredMessage {
  number: number;
  type: string;
  status: string;
  from: string;
  to: string;
  at: string;
  bid: string;
  title: string;
  size: number;
  /** the message file as FBB keeps it (R: lines and body) */
  text: string;
}

export interface Fbb {
  dir: string;
  telnetPort: number;
  /** Appends messages to mail.in (FBB imports it within seconds). */
  importMail(mailIn: string): void;
  /** Waits until FBB has taken mail.in in. */
  imported(timeoutMs?: number): Promise<void>;
  /** FBB's own message directory (dirmes.sys) with each message's file. */
  messages(): StoredMessage[];
  /** FBB's log lines (log/fbblog*). */
  log(): string;
  /** everything xfbbd printed */
  output(): string;
  stop(): Promise<void>;
}

const FBB_FILES = ["langue.sys", "passwd.sys", "protect.sys", "redist.sys", "swapp.sys", "themes.sys", "cron.sys"];

/** A gateway in process with its BBS (`ha`, its hierarchical address) and the FBB port on any free port; BBS_DEBUG=1 logs the sessions. */
export function bbsGateway(instance: string, ha: string, ingestSecret: string): Promise<Running> {
  return startInProcess({
    INGEST_SECRET: ingestSecret,
    BBS_HA: ha,
    BBS_FBB_PORT: "0",
    INSTANCE: instance,
    LOG_LEVEL: process.env.BBS_DEBUG ? "debug" : "error",
  });
}

export function fbbAvailable(): boolean {
  return existsSync("/usr/sbin/xfbbd") && existsSync("/etc/ax25/fbb/langue.sys");
}

export async function startFbb(o: FbbOptions): Promise<Fbb> {
  const dir = tmpDir();
  const telnetPort = o.telnetPort ?? (await freePort());
  // xfbbd's console client port, 3286 unless moved: a free one, so two FBBs (parallel runs) never clash
  const consolePort = await freePort();
  for (const d of ["fbbdos/yapp", "wp", "log", "sat", "lang"]) mkdirSync(join(dir, d), { recursive: true });
  for (let i = 0; i < 10; i++) {
    mkdirSync(join(dir, "mail", `mail${i}`), { recursive: true });
    mkdirSync(join(dir, "binmail", `mail${i}`), { recursive: true });
  }
  for (const f of FBB_FILES) copyFileSync(join("/etc/ax25/fbb", f), join(dir, f));
  for (const f of readdirSync("/etc/ax25/fbb/lang")) copyFileSync(join("/etc/ax25/fbb/lang", f), join(dir, "lang", f));
  // No hold or reject rules (the packaged file holds every local bulletin).
  writeFileSync(join(dir, "reject.sys"), "# nothing rejected or held\n");
  writeFileSync(
    join(dir, "fbb.conf"),
    [
      "version = FBB7.0.11",
      `callsign = ${o.ha}`,
      "ssid = 0",
      "qraloc = JN03QL",
      "city = Testville",
      "name = Test",
      "sysop = N0SYS",
      `data = ${dir}`,
      `config = ${dir}`,
      `messages = ${dir}/mail`,
      `compressed = ${dir}/binmail`,
      `fbbdos = *,*,${dir}/fbbdos,*,*,*,*,*`,
      `yapp = ${dir}/fbbdos/yapp`,
      "docs = /usr/share/doc/fbb",
      "pg = /usr/lib/x86_64-linux-gnu/fbb/pg",
      "fdir = /usr/lib/x86_64-linux-gnu/fbb/filter",
      "sdir = /usr/lib/x86_64-linux-gnu/fbb/server",
      "tdir = /usr/lib/x86_64-linux-gnu/fbb/tool",
      `import = ${dir}/mail/mail.in`,
      "logs = OK",
      "test = NO",
      "fbbfwd = OK 160",
      "fbbcomp = OK 1",
      "askinfo = NO",
      // BBS + modem/telnet access for new callsigns, so the gateway may log in to forward.
      "mask = 4016",
      "security = 1 4 59",
      "warning = 0",
      "housekeeping = 2",
      "timeout = 10 20",
      "maxdownload  = 0 0",
      "beacon = 8",
      "scroll = 1500 1500 1500",
      "fwdheader = [$c] $$:$R",
      "maxbids = 30000",
      "lifetime = 30",
      "zipcode = 00000",
      "unprotoes = 500 5 P",
      "",
    ].join("\n"),
  );
  const hex = telnetPort.toString(16).toUpperCase();
  writeFileSync(
    join(dir, "port.sys"),
    [
      "# one telnet port, forwarding checked every minute",
      "  1      1",
      ` 1   9         ${hex}        0`,
      "  0   0    0   0        0     0     0     0      00/01   ----  File-fwd.",
      "  1   4    1   0        250   2     4     10     00/01   TUY   Telnet",
      "",
    ].join("\n"),
  );
  const routes = o.routes ?? [`B ${o.gatewayCall}`, `F ${o.gatewayCall}`, "G WW"];
  writeFileSync(
    join(dir, "forward.sys"),
    [`A ${o.gatewayCall}`, "P A", `C C ${o.gatewayCall} 127.0.0.1 ${o.gatewayPort}`, `V ${o.call}`, ...routes, "-----------", ""].join("\n"),
  );
  writeFileSync(join(dir, "bbs.sys"), `01 ${o.gatewayCall}\n`);
  // Register the gateway as a user (the sysop's EU command; FBB also does it
  // on its first call to a partner), so the gateway may log in over telnet at
  // once: inf.sys, one 380-byte record: callsign, then FBB's defaults with the
  // user flags (BBS, modem/telnet access) at 0x68.
  const rec = Buffer.alloc(380);
  rec.write(o.gatewayCall, 0, "latin1");
  rec.writeUInt32LE(0x51, 0x48);
  rec.writeUInt16LE(4016, 0x68);
  rec.writeUInt32LE(0x14, 0x6c);
  rec[0x14b] = 0x3f;
  writeFileSync(join(dir, "inf.sys"), rec);
  if (o.mailIn) writeFileSync(join(dir, "mail", "mail.in"), o.mailIn);

  let out = "";
  // Own process group: `yes`, xfbbd and `head` die together.
  const fast = o.clockSpeed && existsSync("/usr/bin/faketime") ? `faketime -f "+0 x${o.clockSpeed}" ` : "";
  const proc: ChildProcess = spawn("bash", ["-c", `yes Y | ${fast}xfbbd -p ${consolePort} 2>&1 | head -c 20000000`], {
    cwd: dir,
    env: { ...process.env, FBBCONF: join(dir, "fbb.conf") },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout!.on("data", (d: Buffer) => {
    if (out.length < 2_000_000) out += d.toString("latin1");
  });
  proc.stderr!.on("data", (d: Buffer) => {
    if (out.length < 2_000_000) out += d.toString("latin1");
  });
  const exited = new Promise<void>((r) => proc.on("exit", () => r()));

  // Ready when the telnet port answers (slow on a loaded machine). xfbbd that
  // could not bind its telnet port goes online without it and says nothing:
  // online for 10 s with the port shut is that, not slowness.
  const deadline = Date.now() + 60_000;
  let onlineAt = 0;
  const fbbLog = () =>
    existsSync(join(dir, "log"))
      ? readdirSync(join(dir, "log"))
          .map((f) => readFileSync(join(dir, "log", f), "latin1"))
          .join("")
      : "";
  for (;;) {
    try {
      const s = await Bun.connect({ hostname: "127.0.0.1", port: telnetPort, socket: { data() {} } });
      s.end();
      break;
    } catch {
      if (!onlineAt && fbbLog().includes("BBS Online")) onlineAt = Date.now();
      const bindFailed = onlineAt > 0 && Date.now() - onlineAt > 10_000;
      if (bindFailed || Date.now() > deadline) {
        try {
          process.kill(-proc.pid!, "SIGKILL");
        } catch {}
        const why = bindFailed ? "is online without its telnet port (taken by another process?)" : "did not open its telnet port within 60 s";
        throw new Error(`xfbbd ${why}: ${telnetPort}\n${out.slice(-3000)}\nlog:\n${fbbLog()}`);
      }
      await Bun.sleep(200);
    }
  }

  const mailIn = join(dir, "mail", "mail.in");
  return {
    dir,
    telnetPort,
    importMail(text) {
      writeFileSync(mailIn, (existsSync(mailIn) ? readFileSync(mailIn, "latin1") : "") + text, "latin1");
    },
    async imported(timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      while (existsSync(mailIn)) {
        if (Date.now() > end) throw new Error("FBB did not import mail.in");
        await Bun.sleep(250);
      }
    },
    messages: () => readDirmes(dir),
    log: fbbLog,
    output: () => out,
    async stop() {
      try {
        process.kill(-proc.pid!, "SIGTERM");
      } catch {}
      await Promise.race([exited, Bun.sleep(3000)]);
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {}
    },
  };
}

/**
 * dirmes.sys of xfbbd 7.0.11 on 64-bit Linux: fixed 222-byte records; the
 * fields used here sit at these offsets (read off files FBB wrote).
 */
const RECORD = 222;
function cstr(b: Buffer, off: number, len: number): string {
  const s = b.subarray(off, off + len);
  const z = s.indexOf(0);
  return s.subarray(0, z < 0 ? len : z).toString("latin1");
}

function readDirmes(dir: string): StoredMessage[] {
  const file = join(dir, "dirmes.sys");
  if (!existsSync(file)) return [];
  const b = readFileSync(file);
  const out: StoredMessage[] = [];
  for (let off = RECORD; off + RECORD <= b.length; off += RECORD) {
    const type = String.fromCharCode(b[off]!);
    if (!"PBT".includes(type)) continue;
    const number = Number(b.readBigInt64LE(off + 2));
    const mes = join(dir, "mail", `mail${number % 10}`, `m_${String(number).padStart(6, "0")}.mes`);
    out.push({
      number,
      type,
      status: String.fromCharCode(b[off + 1]!),
      size: Number(b.readBigInt64LE(off + 10)),
      at: cstr(b, off + 33, 41),
      from: cstr(b, off + 74, 7),
      to: cstr(b, off + 81, 7),
      bid: cstr(b, off + 88, 13),
      title: cstr(b, off + 101, 61),
      text: existsSync(mes) ? readFileSync(mes, "latin1").replace(/\r\n?/g, "\n") : "",
    });
  }
  return out;
}
