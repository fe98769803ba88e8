/**
 * The radio library: KISS, AX.25 frames and links, NET/ROM NODES, TNC ports.
 * It knows nothing of src/; the gateway imports from here.
 */
export * from "./errors.ts";
export * from "./kiss.ts";
export * from "./address.ts";
export * from "./frame.ts";
export * from "./tnc2.ts";
export * from "./digipeat.ts";
export * from "./netrom.ts";
export * from "./clock.ts";
export * from "./airtime.ts";
export * from "./link.ts";
export * from "./station.ts";
export * from "./sim.ts";
export * from "./circuit.ts";
export * from "./port/kiss-port.ts";
export * from "./port/config.ts";
export * from "./port/open.ts";
export { tcpTransport } from "./port/tcp.ts";
export { serialTransport } from "./port/serial.ts";
export { BunSerialBinding, BunSerialPort } from "./port/bun-serial.ts";
export * from "./radio.ts";
export * from "./netrom-l4.ts";
export * from "./netrom-node.ts";
