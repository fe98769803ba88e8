/** Talking to this instance's API from the web app. */
import { lang, SOURCE, t } from "./i18n/i18n.ts";

/**
 * The server's refusal (`{ error, message }`). Its `message` is what a page
 * shows: in the reader's language (errorText), the server's own words kept
 * as `serverMessage`.
 */
export class ApiError extends Error {
  readonly serverMessage: string;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(errorText(code, message));
    this.serverMessage = message;
  }
}

/**
 * A refusal in the reader's words: the translation of its stable `error`
 * code (the `errors` section of ui/i18n), else the server's message. In
 * English the server's message stays, as it names the case at hand ("only
 * the owner of TB12 may mark it missing"); the server writes its messages in
 * English, so another language takes the code's words.
 */
export function errorText(code: string, serverMessage: string): string {
  if (lang() === SOURCE) return serverMessage;
  const key = `errors.${code}`;
  const words = t(key);
  return words === key ? serverMessage : words;
}

/**
 * No answer came (fetch itself failed): the reason in words, as a page shows
 * it ("Could not load the station: this device is offline"), not the
 * browser's "Failed to fetch". Not an ApiError: no answer is not the
 * server's refusal (a page keeps such work for later, as field notes and
 * messages do).
 */
export class NetworkError extends Error {
  readonly code = "network";
  constructor() {
    super(navigator.onLine ? t("state.noAnswer") : t("state.offline"));
  }
}

export async function api<T>(path: string, init?: RequestInit & { json?: unknown }): Promise<T> {
  const headers = new Headers(init?.headers);
  // the server writes its own words (the sign-in e-mail) in the language the interface is in
  if (!headers.has("accept-language")) headers.set("accept-language", lang());
  let body = init?.body;
  if (init?.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers, body, credentials: "same-origin" });
  } catch (e) {
    // an aborted request stays what it was; any other failure of fetch means no answer came
    if ((e as Error).name === "AbortError") throw e;
    throw new NetworkError();
  }
  const type = res.headers.get("content-type") ?? "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const e = (data ?? {}) as { error?: string; message?: string };
    throw new ApiError(res.status, e.error ?? "http_" + res.status, e.message ?? res.statusText);
  }
  return data as T;
}

export interface ClientConfig {
  instance: string;
  version: string;
  tileUrl: string;
  tileAttribution: string;
  spotsEnabled: boolean;
  /** where this instance plays (GET /api/config), for a map with nothing better to start from */
  region: { lat: number; lon: number; zoom: number; from: string } | null;
}

let firstAnswers: Record<string, unknown> | null = null;
/**
 * The answer to GET `path` the page came with, taken (used once), or undefined.
 * The map's page carries GET /api/config and /api/tiles (src/http/ui.ts); a
 * record's page (cache, station, bulletin, profile) its first loads
 * (src/http/first-view.ts).
 */
export function takeFirstAnswer<T>(path: string): { value: T } | undefined {
  if (!firstAnswers) {
    try {
      firstAnswers = JSON.parse(document.getElementById("first-answers")?.textContent || "{}") as Record<string, unknown>;
    } catch {
      firstAnswers = {};
    }
  }
  if (!(path in firstAnswers)) return undefined;
  const value = firstAnswers[path] as T;
  delete firstAnswers[path];
  return { value };
}

/** An answer the page came with, used once; else asked for. */
export function firstAnswer<T>(path: string, ask: () => Promise<T>): Promise<T> {
  const a = takeFirstAnswer<T>(path);
  return a ? Promise.resolve(a.value) : ask();
}

let configPromise: Promise<ClientConfig> | null = null;
export const clientConfig = () => (configPromise ??= firstAnswer("/api/config", () => api<ClientConfig>("/api/config")));
