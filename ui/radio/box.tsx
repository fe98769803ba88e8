/**
 * The local box on the radio page: the transmit form (an APRS message,
 * position or status, built here as a TNC2 line from the signed-in user's
 * verified callsign and sent as a `ui` command, which the radio carries out
 * through the APRS outbox and its rate limits) and the box's command log
 * (the sysop sees every command, anyone else signed in their own).
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import type { Account } from "../account/session.ts";
import { encodeMessage, encodePosition, encodeStatus } from "../../src/lib/aprs/encode.ts";
import { LOCAL_BOX, type BoxCommand, type RadioPort } from "./types.ts";
import { When } from "../time.tsx";
import { t } from "../i18n/i18n.ts";

type Kind = "message" | "position" | "status";
const blank = { kind: "message" as Kind, addressee: "", text: "", lat: "", lon: "", symbol: "/[", comment: "" };

/** The TNC2 line the form describes, or why it cannot be sent. The radio puts its own path on it. */
function lineOf(call: string, f: typeof blank): { line?: string; problem?: string } {
  try {
    const h = { src: call, path: [] };
    if (f.kind === "message")
      return f.addressee.trim() ? { line: encodeMessage({ ...h, addressee: f.addressee.trim(), text: f.text }) } : { problem: t("radioBox.whoFor") };
    if (f.kind === "status") return { line: encodeStatus({ ...h, text: f.text }) };
    if (f.lat.trim() === "" || f.lon.trim() === "") return { problem: t("radioBox.latLon") };
    return { line: encodePosition({ ...h, lat: Number(f.lat), lon: Number(f.lon), symbol: f.symbol, comment: f.comment || undefined }) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/** The radio as GET /api/ports tells it: what a line sent now will meet. */
export function radioState(ports: RadioPort[] | undefined): { state: "loading" | "no-tnc" | "receive-only" | "not-connected" | "connected"; text: string } {
  if (!ports) return { state: "loading", text: t("radioBox.looking") };
  if (ports.length === 0) return { state: "no-tnc", text: t("radioBox.noTnc") };
  const up = ports.find((p) => p.portState === "connected");
  if (!up) return { state: "not-connected", text: t("radioBox.notConnected", { ports: ports.map((p) => p.name).join(", ") }) };
  if (!up.call) return { state: "receive-only", text: t("radioBox.receiveOnly", { port: up.name }) };
  return { state: "connected", text: t("radioBox.connected", { port: up.name, call: up.call }) };
}

/** An outbox item as GET /api/tx/aprs lists it. */
interface OutboxItem {
  id: number;
  state: "queued" | "leased" | "sent" | "acked" | "rejected" | "failed";
  sentAt: number | null;
  error: string | null;
}

/** Where a sent command is now: the box command, then the outbox line it became. */
function TxProgress({ id, tick, air }: { id: number; tick: number; air: ReturnType<typeof radioState> }) {
  const now = useLoad(async () => {
    const log = await api<{ commands: BoxCommand[] }>(`/api/box/${LOCAL_BOX}/log?limit=50`);
    const command = log.commands.find((c) => c.id === id) ?? null;
    const outboxId = (command?.result as { outboxId?: number } | null)?.outboxId;
    const item = typeof outboxId === "number" ? ((await api<{ items: OutboxItem[] }>("/api/tx/aprs")).items.find((i) => i.id === outboxId) ?? null) : null;
    return { command, item };
  }, [id, tick]);
  const c = now.data?.command;
  const item = now.data?.item;
  let text: preact.ComponentChildren = t("radioBox.queued");
  let cls = "muted";
  if (c?.state === "expired") [text, cls] = [t("radioBox.expiredNever"), "error"];
  else if (c?.state === "acknowledged" && c.ok === false)
    [text, cls] = [t("radioBox.failedWhy", { why: (c.result as { error?: string } | null)?.error ?? t("radioBox.refused") }), "error"];
  else if (item?.state === "sent" || item?.state === "acked")
    [text, cls] = [
      <>
        {t("radioBox.sent")} <When at={item.sentAt} />
      </>,
      "ok",
    ];
  else if (item?.state === "failed" || item?.state === "rejected")
    [text, cls] = [item.error ? t("radioBox.failedWhy", { why: item.error }) : t("radioBox.failed"), "error"];
  else if (air.state === "connected") text = t("radioBox.queuedChannel");
  else text = air.state === "no-tnc" || air.state === "not-connected" ? t("radioBox.queuedNoTnc") : t("radioBox.queuedReceiveOnly");
  return (
    <span class={cls} data-testid="tx-state">
      {text}
    </span>
  );
}

/**
 * `account`: undefined while loading, null when signed out. `ports`:
 * undefined while the ports load.
 */
export function TransmitCard({
  account,
  ports,
  tick,
  onSent,
  onRefused,
}: {
  account: Account | null | undefined;
  ports: RadioPort[] | undefined;
  tick: number;
  onSent: () => void;
  onRefused: () => void;
}) {
  const [f, setF] = useState(blank);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: true; command: BoxCommand } | { ok: false; status: number; code: string; message: string } | null>(null);
  const hasRadio = ports ? ports.length > 0 : undefined;
  const air = radioState(ports);
  const lock =
    hasRadio === false
      ? t("radioBox.lockNoPort")
      : account === null
        ? t("radioBox.lockSignIn")
        : account && !account.call
          ? t("radioBox.lockNoCall")
          : account && !account.verified
            ? t("radioBox.lockUnverified", { call: account.call })
            : null;
  const ready = !!account && hasRadio === true && !lock;
  const built = ready ? lineOf(account!.call!, f) : {};
  const set = (k: keyof typeof blank) => ({
    value: f[k],
    onInput: (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value }),
  });
  const send = async (e: Event) => {
    e.preventDefault();
    if (!built.line) return;
    setBusy(true);
    try {
      const r = await api<{ command: BoxCommand }>(`/api/box/${LOCAL_BOX}/command`, { method: "POST", json: { kind: "ui", args: { line: built.line } } });
      setOutcome({ ok: true, command: r.command });
      setF({ ...f, text: "", comment: "" });
      onSent();
    } catch (err) {
      const a = err instanceof ApiError ? err : new ApiError(0, "network", (err as Error).message);
      setOutcome({ ok: false, status: a.status, code: a.code, message: a.message });
      // a refusal over who may transmit: look at the account again, so the form says why
      if (a.status === 401 || a.status === 403) onRefused();
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="card" aria-labelledby="tx-title">
      <h2 id="tx-title">{t("radioBox.title")}</h2>
      <p class={air.state === "connected" ? "muted" : "warn"} data-testid="tx-radio" data-state={air.state}>
        {air.text}
      </p>
      {lock && (
        <p class="notice" data-testid="tx-locked">
          {lock}{" "}
          {account === null ? (
            <a href="/account">{t("radioBox.signIn")}</a>
          ) : account && (!account.call || !account.verified) ? (
            <a href="/account">{t("radioBox.yourAccount")}</a>
          ) : null}
        </p>
      )}
      <form onSubmit={send} aria-label={t("radioBox.formLabel")}>
        <fieldset disabled={!ready || busy} class="bare">
          <div class="actions" role="radiogroup" aria-label={t("radioBox.whatToSend")}>
            {(["message", "position", "status"] as Kind[]).map((k) => (
              <label class="check">
                <input type="radio" name="kind" value={k} checked={f.kind === k} onChange={() => setF({ ...f, kind: k })} />{" "}
                {k === "message" ? t("radioBox.kindMessage") : k === "position" ? t("radioBox.kindPosition") : t("radioBox.kindStatus")}
              </label>
            ))}
          </div>
          {f.kind === "message" && (
            <>
              <label for="tx-to">{t("radioBox.to")}</label>
              <input id="tx-to" placeholder="N0CALL-9" maxLength={9} {...set("addressee")} />
              <label for="tx-text">{t("radioBox.text")}</label>
              <input id="tx-text" maxLength={67} class="wide" {...set("text")} />
              <p class="muted">{t("radioBox.onceUi")}</p>
            </>
          )}
          {f.kind === "position" && (
            <>
              <div class="actions">
                <span>
                  <label for="tx-lat">{t("radioBox.lat")}</label>
                  <input id="tx-lat" inputMode="decimal" placeholder="42.6190" size={10} {...set("lat")} />
                </span>
                <span>
                  <label for="tx-lon">{t("radioBox.lon")}</label>
                  <input id="tx-lon" inputMode="decimal" placeholder="-71.3472" size={10} {...set("lon")} />
                </span>
                <span>
                  <label for="tx-symbol">{t("radioBox.symbol")}</label>
                  <input id="tx-symbol" maxLength={2} size={3} {...set("symbol")} />
                </span>
              </div>
              <label for="tx-comment">{t("radioBox.comment")}</label>
              <input id="tx-comment" maxLength={43} class="wide" {...set("comment")} />
            </>
          )}
          {f.kind === "status" && (
            <>
              <label for="tx-status">{t("radioBox.statusText")}</label>
              <input id="tx-status" maxLength={62} class="wide" {...set("text")} />
            </>
          )}
          {ready && (
            <p data-testid="tx-line">
              {built.line ? (
                <>
                  {t("radioBox.sends")} <code class="tnc2">{built.line}</code> <span class="muted">{t("radioBox.withPath")}</span>
                </>
              ) : (
                <span class="muted">{built.problem}</span>
              )}
            </p>
          )}
          <div class="actions send">
            <button type="submit" class="primary" disabled={!built.line}>
              {t("radioBox.send")}
            </button>
          </div>
        </fieldset>
      </form>
      {outcome?.ok === true && (
        <p class="ok" role="status" data-testid="tx-result">
          {t("radioBox.queuedAs", { id: outcome.command.id })} <TxProgress id={outcome.command.id} tick={tick} air={air} />
        </p>
      )}
      {outcome?.ok === false && (
        <p class="error" role="alert" data-testid="tx-refused">
          {t("radioBox.refusedTx")} {outcome.message}{" "}
          <span class="muted">
            ({outcome.status ? `${outcome.status} ` : ""}
            {outcome.code})
          </span>
        </p>
      )}
    </div>
  );
}

/** A box command's state: "in the outbox" once the box took it (the answer says where it went), not "done". */
const commandState = (s: string) => t(`radioBox.state.${s}`, { defaultValue: s });

/** What a command asked for, in a line. */
function what(c: BoxCommand): string {
  if (typeof c.args.line === "string") return c.args.line;
  const args = Object.entries(c.args).map(([k, v]) => `${k}=${String(v)}`);
  return args.join(" ");
}

/** What the box answered, in a line. */
function answer(c: BoxCommand): string {
  const r = c.result as Record<string, unknown> | null;
  if (r && typeof r === "object" && typeof r.error === "string") return r.error;
  if (r && typeof r === "object" && typeof r.outboxId === "number") return t("radioBox.inOutbox", { id: r.outboxId });
  return r === null || r === undefined ? "" : JSON.stringify(r).slice(0, 200);
}

export function CommandLog({ tick, account }: { tick: number; account: Account | null | undefined }) {
  const log = useLoad(
    () => (account ? api<{ box: string; commands: BoxCommand[] }>(`/api/box/${LOCAL_BOX}/log?limit=50`) : Promise.resolve(null)),
    [tick, account?.id ?? null],
  );
  const commands = log.data?.commands;
  return (
    <div class="card">
      <h2>{t("radioBox.logTitle")}</h2>
      {account === null && (
        <p class="muted" data-testid="log-locked">
          {t("radioBox.logSignIn")}
        </p>
      )}
      {account && <p class="muted">{account.sysop ? t("radioBox.logSysop") : t("radioBox.logYours")}</p>}
      {log.error && (log.error as ApiError).status !== 409 && <p class="error">{log.error.message}</p>}
      {commands && commands.length === 0 && <p class="muted">{t("radioBox.noCommands")}</p>}
      {commands && commands.length > 0 && (
        <div class="table-scroll">
          <table class="table" data-testid="box-log">
            <thead>
              <tr>
                <th>#</th>
                <th>{t("radioBox.colSent")}</th>
                <th>{t("radioBox.colKind")}</th>
                <th>{t("radioBox.colAs")}</th>
                <th>{t("radioBox.colWhat")}</th>
                <th>{t("radioBox.colState")}</th>
                <th>{t("radioBox.colAnswer")}</th>
              </tr>
            </thead>
            <tbody>
              {commands.map((c) => (
                <tr data-command={c.id}>
                  <td>{c.id}</td>
                  <td class="nowrap">
                    <When at={c.createdAt} />
                  </td>
                  <td>
                    {c.kind}
                    {c.transmit && (
                      <span class="muted" title={t("radioBox.onAirTitle")}>
                        {" "}
                        {t("radioBox.onAir")}
                      </span>
                    )}
                  </td>
                  <td class="nowrap">{c.call ?? <span class="muted">{c.via}</span>}</td>
                  <td>
                    <code class="tnc2">{what(c)}</code>
                  </td>
                  <td data-testid="command-state">
                    <span class={c.state === "acknowledged" ? (c.ok ? "ok" : "error") : c.state === "expired" ? "error" : "muted"}>
                      {c.state === "acknowledged" && c.ok === false
                        ? t("radioBox.failed")
                        : c.state === "acknowledged" && !c.transmit
                          ? t("radioBox.done")
                          : commandState(c.state)}
                    </span>
                    {c.attempts > 1 && <div class="muted">{t("radioBox.leases", { count: c.attempts })}</div>}
                  </td>
                  <td data-testid="command-answer">{answer(c)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
