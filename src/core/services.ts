/**
 * What each domain keeps for one gateway while it runs: its registries,
 * clients, queues, counters and hooks. One entry per domain service, declared
 * by the domain beside the code that uses it:
 *
 *   declare module "../core/services.ts" {
 *     interface Services { ports: Map<string, () => PortStatus> }
 *   }
 *
 * The composition root builds every entry (`buildServices`,
 * src/hosts/services.ts) when it assembles the gateway, so a gateway's state
 * is listed in one place, made with the gateway and dropped with it;
 * TypeScript refuses a root that leaves one out. test/architecture.test.ts
 * refuses a module-level table keyed by the gateway.
 */
// biome-ignore lint/suspicious/noEmptyInterface: each domain adds its entry by declaration merging
export interface Services {}
