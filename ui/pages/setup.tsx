import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { MapArchivesSection } from "../map/archives-section.tsx";
import { GettingStarted } from "./getting-started.tsx";
import { ServerLink } from "../secure-context.tsx";
import { fmtDate, t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

interface SetupState {
  needed: boolean;
  restartNeeded?: boolean;
  /** why signing and transmitting are paused (an unset clock); message null when the clock is sane */
  clock?: { sane: boolean; message: string | null };
  values: { instance: string; operator: string; aprsCall: string; tileUrl: string; radioCall: string; kissPorts: string; tls: string };
  /** HTTPS as it runs now (src/tls/) */
  tls?: { mode: string; httpsPort: number | null; notAfter?: number | null; lastError?: string | null };
}

/** An instance name as an example (a name, the same in every language). */
const EXAMPLE_INSTANCE = "n0call-gw";

/** The TLS setting's choices (the value the server takes), each said in a sentence (setup.tls.<value>). */
const TLS_CHOICES = ["off", "local", "acme", "files"];

export function SetupPage() {
  const state = useLoad(() => api<SetupState>("/api/setup"));
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  const token = location.hash.slice(1);
  if (state.loading)
    return (
      <section class="page">
        <p class="muted">{t("state.loadingPlain")}</p>
      </section>
    );
  if (state.error)
    return (
      <section class="page">
        <p class="error" role="alert">
          {t("setup.couldNotRead", { reason: state.error.message })}
        </p>
      </section>
    );
  if (!state.data!.needed && !result.ok)
    return (
      <section class="page">
        <h1>{t("setup.title")}</h1>
        <ClockLine state={state.data!} />
        <p>{t("setup.alreadySetUp")}</p>
        <TlsLine state={state.data!} />
        <MapArchivesSection />
        <GettingStarted />
      </section>
    );
  const v = state.data!.values;
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      await api("/api/setup", { method: "POST", json: { token, ...Object.fromEntries(form) } });
      setResult({ ok: t("setup.saved") });
    } catch (err) {
      setResult({ error: (err as Error).message });
    }
  };
  return (
    <section class="page">
      <h1>{t("setup.heading")}</h1>
      <ClockLine state={state.data!} />
      {!token && <p class="error">{t("setup.noToken")}</p>}
      {result.ok ? (
        <>
          <p role="status">{result.ok}</p>
          <GettingStarted />
        </>
      ) : (
        <form onSubmit={submit}>
          <label for="instance">{t("setup.instance")}</label>
          <input id="instance" name="instance" defaultValue={v.instance === "local" ? "" : v.instance} placeholder={EXAMPLE_INSTANCE} />
          <label for="operator">{t("setup.operator")}</label>
          <input id="operator" name="operator" defaultValue={v.operator} placeholder="N0CALL" aria-describedby="operator-help" />
          <p class="muted" id="operator-help">
            {t("setup.operatorHelp")}
          </p>
          <label for="aprsCall">{t("setup.aprsCall")}</label>
          <input id="aprsCall" name="aprsCall" defaultValue={v.aprsCall} placeholder="N0CALL-10" aria-describedby="aprsCall-help" />
          <p class="muted" id="aprsCall-help">
            {t("setup.aprsCallHelp")}
          </p>
          <label for="tileUrl">{t("setup.tiles")}</label>
          <input id="tileUrl" name="tileUrl" defaultValue={v.tileUrl || "off"} size={50} />
          <label for="radioCall">{t("setup.radioCall")}</label>
          <input id="radioCall" name="radioCall" defaultValue={v.radioCall} placeholder="N0CALL-10" aria-describedby="radioCall-help" />
          <p class="muted" id="radioCall-help">
            {t("setup.radioCallHelp")}
          </p>
          <label for="kissPorts">{t("setup.kissPorts")}</label>
          <input id="kissPorts" name="kissPorts" defaultValue={v.kissPorts} placeholder={t("setup.kissPortsPh")} size={50} />
          <p class="muted">{t("setup.kissPortsHelp")}</p>
          <fieldset>
            <legend>{t("setup.https")}</legend>
            {TLS_CHOICES.map((value) => (
              <label key={value} class="choice">
                <input type="radio" name="tls" value={value} defaultChecked={(v.tls || "off") === value} /> {t(`setup.tls.${value}`)}
              </label>
            ))}
            <p class="muted">
              <Rich k="setup.localTrust" parts={[(x) => <ServerLink href="/tls">{x}</ServerLink>]} />
            </p>
          </fieldset>
          <p class="muted">{t("setup.secrets")}</p>
          <button class="primary" type="submit">
            {t("setup.save")}
          </button>
          {result.error && <p class="error">{result.error}</p>}
        </form>
      )}
      <MapArchivesSection />
    </section>
  );
}

/** HTTPS as it runs: the mode, the certificate's expiry, the last error, and where devices learn to trust the local CA. */
function TlsLine({ state }: { state: SetupState }) {
  const s = state.tls;
  if (!s) return null;
  return (
    <>
      <p data-tls>
        HTTPS: {s.mode === "off" ? t("setup.httpsOff") : t("setup.httpsOn", { mode: s.mode, port: s.httpsPort ?? "?" })}
        {s.notAfter ? t("setup.validUntil", { date: fmtDate(s.notAfter) }) : ""}
        {s.mode === "local" && (
          <>
            {" "}
            (<ServerLink href="/tls">{t("setup.installCert")}</ServerLink>)
          </>
        )}
        {s.lastError && (
          <span class="error" role="alert">
            {" "}
            {s.lastError}
          </span>
        )}
      </p>
      {s.mode === "acme" && s.lastError && <RetryNow />}
    </>
  );
}

/** After a failed ACME order: try again now (sysop), rather than wait out the back-off once the cause is fixed. */
function RetryNow() {
  const { run, busy, errorView } = useAction();
  const [asked, setAsked] = useState(false);
  if (asked) return <p>{t("setup.retrying")}</p>;
  return (
    <>
      <button type="button" disabled={busy} onClick={() => run(() => api("/api/tls/retry", { method: "POST", json: {} }).then(() => setAsked(true)))}>
        {t("setup.retry")}
      </button>
      {errorView}
    </>
  );
}

/** The clock's line: shown only while it is not set (signing and transmitting wait for it). */
function ClockLine({ state }: { state: SetupState }) {
  if (!state.clock?.message) return null;
  return (
    <p class="error" role="alert" data-clock>
      {state.clock.message}
    </p>
  );
}
