/** KISS over a serial line (a USB or on-board TNC), through @serialport/stream and the Bun binding. */
import { BunSerialBinding } from "./bun-serial.ts";
import type { Connection, Transport, TransportHandlers } from "./kiss-port.ts";

export function serialTransport(path: string, baudRate: number): Transport {
  return {
    kind: "serial",
    id: `serial:${path}@${baudRate}`,
    open: async (h: TransportHandlers) => {
      // loaded when a serial port is opened: most stations use a TNC over TCP
      const { SerialPortStream } = await import("@serialport/stream");
      return new Promise<Connection>((resolve, reject) => {
        const port = new SerialPortStream({ binding: BunSerialBinding, path, baudRate, autoOpen: false });
        let open = false;
        port.on("data", (d: Buffer) => h.data(new Uint8Array(d.buffer, d.byteOffset, d.length)));
        port.on("error", (e: Error) => {
          if (open) h.close(e);
        });
        port.on("close", (e: Error | null) => {
          if (open) h.close(e ?? undefined);
        });
        port.open((err) => {
          if (err) return reject(err);
          open = true;
          resolve({
            write: (bytes) => void port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
            close: () => {
              open = false;
              if (port.isOpen) port.close();
            },
          });
        });
      });
    },
  };
}
