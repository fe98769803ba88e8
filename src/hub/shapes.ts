/** The hub's answer over HTTP (src/hub/routes.ts), defined once. */
import { t } from "elysia";
import { closed } from "../lib/schema.ts";

/** DELETE /api/hub/clients/{id}. */
export const HUB_CLIENT_DISCONNECTED = closed({ disconnected: t.String({ description: "the client's id, e.g. kiss-3" }) });
