/**
 * What routes and live feeds ask of the server that carries a request: the
 * peer's address, a long-lived response, WebSocket topics. Bun's `Server` is
 * one as it is (src/hosts/bun.ts); src/hosts/node.ts makes one on node:http.
 * A pure interface, so every layer may name it.
 */
export interface HttpServer {
  readonly port: number | undefined;
  /** the address of the connection a request came on */
  requestIP(request: Request): { address: string } | null;
  /** seconds the connection may stay idle; 0 keeps it open (event streams) */
  timeout(request: Request, seconds: number): void;
  /** WebSocket topics (live rooms): send to every subscriber, count them */
  publish(topic: string, data: string): unknown;
  subscriberCount(topic: string): number;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
