/**
 * A serial-port binding for @serialport/stream that needs no native addon, so
 * the compiled executable drives a USB TNC on any Linux machine.
 * (`@serialport/bindings-cpp` panics Bun on open and `bun build --compile`
 * cannot embed its .node file.) The tty is opened O_RDWR|O_NOCTTY|O_NONBLOCK,
 * configured with stty(1) while we hold it open, read through
 * `Bun.file(fd).stream()` and written with `fs.writeSync`, retrying on EAGAIN.
 *
 * Limits (documented in docs/operating.md): no exclusive lock (`lock` is
 * ignored), and the modem-line calls `set`/`get` are refused: KISS TNCs need
 * neither, and the kernel raises DTR/RTS when the port opens.
 */
import { closeSync, constants, existsSync, openSync, readdirSync, realpathSync, writeSync } from "node:fs";
import { basename, join } from "node:path";
import { BAUD_RATES } from "./config.ts";

// The binding interface of @serialport/bindings-interface, written out: its
// package "exports" hide the type declarations from TypeScript's resolver.
export interface OpenOptions {
  path: string;
  baudRate: number;
  dataBits?: 5 | 6 | 7 | 8;
  lock?: boolean;
  stopBits?: 1 | 1.5 | 2;
  parity?: string;
  rtscts?: boolean;
  xon?: boolean;
  xoff?: boolean;
  xany?: boolean;
  hupcl?: boolean;
}
export interface UpdateOptions {
  baudRate: number;
}
export interface SetOptions {
  brk?: boolean;
  cts?: boolean;
  dsr?: boolean;
  dtr?: boolean;
  rts?: boolean;
}
export interface PortStatus {
  cts: boolean;
  dsr: boolean;
  dcd: boolean;
}
export interface PortInfo {
  path: string;
  manufacturer: string | undefined;
  serialNumber: string | undefined;
  pnpId: string | undefined;
  locationId: string | undefined;
  productId: string | undefined;
  vendorId: string | undefined;
}
interface BindingPortInterface {
  readonly openOptions: Required<OpenOptions>;
  isOpen: boolean;
  close(): Promise<void>;
  read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }>;
  write(buffer: Buffer): Promise<void>;
  update(options: UpdateOptions): Promise<void>;
  set(options: SetOptions): Promise<void>;
  get(): Promise<PortStatus>;
  getBaudRate(): Promise<{ baudRate: number }>;
  flush(): Promise<void>;
  drain(): Promise<void>;
}
interface BindingInterface<T extends BindingPortInterface> {
  list(): Promise<PortInfo[]>;
  open(options: OpenOptions): Promise<T>;
}

class BindingError extends Error {
  constructor(
    message: string,
    readonly canceled = false,
  ) {
    super(message);
  }
}

// looked up on first use: importing this module does nothing (a host without serial ports bundles the barrel)
let sttyPath: string | null = null;

function stty(path: string, args: string[]): string {
  sttyPath ??= ["/usr/bin/stty", "/bin/stty"].find((p) => existsSync(p)) ?? "stty";
  const r = Bun.spawnSync([sttyPath, "-F", path, ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new BindingError(`stty ${args.join(" ")} on ${path} failed: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

function termiosArgs(o: Required<OpenOptions>): string[] {
  const parity = o.parity === "even" ? ["parenb", "-parodd"] : o.parity === "odd" ? ["parenb", "parodd"] : ["-parenb"];
  return [
    String(o.baudRate),
    "raw",
    "-echo",
    "clocal",
    "cread",
    `cs${o.dataBits}`,
    o.stopBits === 1 ? "-cstopb" : "cstopb",
    ...parity,
    o.rtscts ? "crtscts" : "-crtscts",
    o.xon ? "ixon" : "-ixon",
    o.xoff ? "ixoff" : "-ixoff",
    o.xany ? "ixany" : "-ixany",
    o.hupcl ? "hupcl" : "-hupcl",
  ];
}

function checkBaud(b: number) {
  if (!(BAUD_RATES as readonly number[]).includes(b)) throw new BindingError(`baud rate ${b} is not one of ${BAUD_RATES.join(", ")}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class BunSerialPort implements BindingPortInterface {
  isOpen = true;
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  /** bytes read from the tty that the stream has not asked for yet */
  private pending: Uint8Array | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private fd: number,
    readonly openOptions: Required<OpenOptions>,
  ) {
    this.reader = Bun.file(fd).stream().getReader();
  }

  async read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    if (!this.isOpen) throw new BindingError("port is closed", true);
    if (!this.pending) {
      let r: { done: boolean; value?: Uint8Array };
      try {
        r = await this.reader.read();
      } catch (e) {
        throw new BindingError(this.isOpen ? `read failed: ${(e as Error).message}` : "port is closed", !this.isOpen);
      }
      if (!this.isOpen) throw new BindingError("port is closed", true);
      // end of stream on a tty means the device went away (hangup, unplug)
      if (r.done) throw new BindingError(`${this.openOptions.path} hung up`);
      if (!r.value?.length) return this.read(buffer, offset, length);
      this.pending = r.value;
    }
    const n = Math.min(length, this.pending.length);
    buffer.set(this.pending.subarray(0, n), offset);
    this.pending = n < this.pending.length ? this.pending.subarray(n) : null;
    return { buffer, bytesRead: n };
  }

  write(buffer: Buffer): Promise<void> {
    const job = this.writing.then(() => this.writeAll(buffer));
    this.writing = job.catch(() => {});
    return job;
  }

  private async writeAll(buffer: Uint8Array) {
    let at = 0;
    let wait = 1;
    while (at < buffer.length) {
      if (!this.isOpen) throw new BindingError("port is closed", true);
      try {
        at += writeSync(this.fd, buffer, at, buffer.length - at);
        wait = 1;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "EAGAIN" && code !== "EWOULDBLOCK") throw new BindingError(`write failed: ${code ?? (e as Error).message}`);
        // the tty's output buffer is full: at 1200 baud it drains ~1 byte/8 ms
        await sleep(wait);
        wait = Math.min(wait * 2, 50);
      }
    }
  }

  async update(options: UpdateOptions): Promise<void> {
    checkBaud(options.baudRate);
    stty(this.openOptions.path, [String(options.baudRate)]);
    this.openOptions.baudRate = options.baudRate;
  }

  async set(_options: SetOptions): Promise<void> {
    throw new BindingError("modem control lines are not supported by the Bun serial binding (KISS TNCs do not need them)");
  }

  async get(): Promise<PortStatus> {
    throw new BindingError("modem status lines are not supported by the Bun serial binding");
  }

  async getBaudRate(): Promise<{ baudRate: number }> {
    // `stty speed` prints the current rate, e.g. "9600"
    return { baudRate: Number(stty(this.openOptions.path, ["speed"]).trim()) };
  }

  /** Discards input read but not yet delivered. */
  async flush(): Promise<void> {
    this.pending = null;
  }

  /** Resolves once every write has been handed to the kernel. */
  async drain(): Promise<void> {
    await this.writing;
  }

  async close(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    await this.reader.cancel().catch(() => {});
    await this.writing.catch(() => {});
    closeSync(this.fd);
  }
}

const DEFAULTS = {
  dataBits: 8,
  lock: true,
  stopBits: 1,
  parity: "none",
  rtscts: false,
  xon: false,
  xoff: false,
  xany: false,
  hupcl: true,
} as const;

export const BunSerialBinding: BindingInterface<BunSerialPort> = {
  /** Serial devices as Linux names them: USB adapters, on-board UARTs, and their stable by-id links. */
  async list(): Promise<PortInfo[]> {
    const out: PortInfo[] = [];
    const seen = new Set<string>();
    const add = (path: string, pnpId?: string) => {
      let real = path;
      try {
        real = realpathSync(path);
      } catch {}
      if (seen.has(real)) return;
      seen.add(real);
      out.push({ path, manufacturer: undefined, serialNumber: undefined, pnpId, locationId: undefined, productId: undefined, vendorId: undefined });
    };
    const byId = "/dev/serial/by-id";
    if (existsSync(byId)) for (const n of readdirSync(byId)) add(join(byId, n), n);
    for (const n of existsSync("/dev") ? readdirSync("/dev") : [])
      if (/^tty(USB|ACM|AMA|S[0-3]$)/.test(n) || n === "serial0" || n === "rfcomm0") add(join("/dev", n), basename(n));
    return out;
  },

  async open(options: OpenOptions): Promise<BunSerialPort> {
    const o = { ...DEFAULTS, ...options } as Required<OpenOptions>;
    if (!o.path) throw new BindingError("no serial port path");
    checkBaud(o.baudRate);
    if (![5, 6, 7, 8].includes(o.dataBits)) throw new BindingError(`data bits ${o.dataBits} is not 5-8`);
    if (o.stopBits !== 1 && o.stopBits !== 2) throw new BindingError(`stop bits ${o.stopBits} is not 1 or 2 (1.5 is not supported on Linux)`);
    if (!["none", "even", "odd"].includes(o.parity)) throw new BindingError(`parity ${o.parity} is not none, even or odd`);
    let fd: number;
    try {
      fd = openSync(o.path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    } catch (e) {
      throw new BindingError(`cannot open ${o.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      stty(o.path, termiosArgs(o));
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new BunSerialPort(fd, o);
  },
};
