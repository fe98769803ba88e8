import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { MapArchivesSection } from "../map/archives-section.tsx";
import { GettingStarted } from "./getting-started.tsx";
import { ServerLink } from "../secure-context.tsx";
import { useAction } from "../account/ui.tsx";

interface SetupState {
  needed: boolean;
  restartNeeded?: boolean;
  /** why signing and transmitting are paused (an unset clock); message null when the clock is sane */
  clock?: { sane: boolean; message: string | null };
  values: { instance: string; operator: string; aprsCall: string; tileUrl: string; radioCall: string; kissPorts: string; tls: string };
  /** HTTPS as it runs now (src/tls/) */
  tls?: { mode: string; httpsPort: number | null; notAfter?: number | null; lastError?: string | null };
}

/** The TLS setting's choices, a sentence each. */
const TLS_CHOICES: Array<[string, string]> = [
  ["off", "Off: plain http only. Browsers then refuse offline maps, installing the app and passkeys on any address but localhost."],
  ["local", "Local: the gateway is its own certificate authority for your network; install its certificate once on each device from the /tls page."],
  [
    "acme",
    "ACME: a certificate from Let's Encrypt for a public name of this machine (needs ACME_DOMAINS and ACME_EMAIL in the env file, and port 80 or 443 reachable).",
  ],
  ["files", "Files: your own certificate and key (TLS_CERT and TLS_KEY in the env file), read again when they change."],
];

export function SetupPage() {
  const state = useLoad(() => api<SetupState>("/api/setup"));
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  const token = location.hash.slice(1);
  if (state.loading)
    return (
      <section class="page">
        <p class="muted">Loading…</p>
      </section>
    );
  if (state.error)
    return (
      <section class="page">
        <p class="error" role="alert">
          Could not read the set-up state: {state.error.message}
        </p>
      </section>
    );
  if (!state.data!.needed && !result.ok)
    return (
      <section class="page">
        <h1>Set-up</h1>
        <ClockLine state={state.data!} />
        <p>This gateway is already set up. Settings live in the env file in its data directory.</p>
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
      setResult({ ok: "Saved. Next: restart the gateway to apply the new settings, then the steps below." });
    } catch (err) {
      setResult({ error: (err as Error).message });
    }
  };
  return (
    <section class="page">
      <h1>Set up this gateway</h1>
      <ClockLine state={state.data!} />
      {!token && <p class="error">Open the set-up link the gateway printed when it started: it carries a one-time token.</p>}
      {result.ok ? (
        <>
          <p role="status">{result.ok}</p>
          <GettingStarted />
        </>
      ) : (
        <form onSubmit={submit}>
          <label for="instance">Instance name</label>
          <input id="instance" name="instance" defaultValue={v.instance === "local" ? "" : v.instance} placeholder="n0call-gw" />
          <label for="operator">Operator callsign</label>
          <input id="operator" name="operator" defaultValue={v.operator} placeholder="N0CALL" aria-describedby="operator-help" />
          <p class="muted" id="operator-help">
            Your own licence callsign: the person who runs this gateway, as other gateways see it in the registry (sysops are ADMIN_CALLSIGNS).
          </p>
          <label for="aprsCall">APRS service callsign</label>
          <input id="aprsCall" name="aprsCall" defaultValue={v.aprsCall} placeholder="N0CALL-10" aria-describedby="aprsCall-help" />
          <p class="muted" id="aprsCall-help">
            The callsign with an SSID this gateway's APRS service logs in to APRS-IS with, and is listed under in the registry.
          </p>
          <label for="tileUrl">Map tiles (URL template, or "off")</label>
          <input id="tileUrl" name="tileUrl" defaultValue={v.tileUrl || "off"} size={50} />
          <label for="radioCall">Radio callsign (RADIO_CALL; empty = receive only)</label>
          <input id="radioCall" name="radioCall" defaultValue={v.radioCall} placeholder="N0CALL-10" aria-describedby="radioCall-help" />
          <p class="muted" id="radioCall-help">
            The call your radio transmits under on RF (your licence call with an SSID); leave it empty to only listen.
          </p>
          <label for="kissPorts">Radio TNC ports (KISS_PORTS)</label>
          <input id="kissPorts" name="kissPorts" defaultValue={v.kissPorts} placeholder="tcp://127.0.0.1:8001, serial:/dev/ttyUSB0@9600, or off" size={50} />
          <p class="muted">Empty uses Direwolf's KISS port on this machine when it runs. Transmitting needs the radio callsign verified (APRS challenge).</p>
          <fieldset>
            <legend>HTTPS (TLS; served on HTTPS_PORT, 8443 unless set)</legend>
            {TLS_CHOICES.map(([value, text]) => (
              <label key={value} class="choice">
                <input type="radio" name="tls" value={value} defaultChecked={(v.tls || "off") === value} /> {text}
              </label>
            ))}
            <p class="muted">
              With local, devices trust the gateway after installing its certificate: <ServerLink href="/tls">how to install it</ServerLink>.
            </p>
          </fieldset>
          <p class="muted">Sysop callsigns (ADMIN_CALLSIGNS) and secrets are set in the env file or the environment, never here.</p>
          <button class="primary" type="submit">
            Save
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
        HTTPS: {s.mode === "off" ? "off (TLS=off)" : `TLS=${s.mode} on port ${s.httpsPort ?? "?"}`}
        {s.notAfter ? `, certificate valid until ${new Date(s.notAfter).toLocaleDateString()}` : ""}
        {s.mode === "local" && (
          <>
            {" "}
            (<ServerLink href="/tls">install its certificate on your devices</ServerLink>)
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
  if (asked) return <p>Trying again now: reload this page in a moment to see the outcome.</p>;
  return (
    <>
      <button type="button" disabled={busy} onClick={() => run(() => api("/api/tls/retry", { method: "POST", json: {} }).then(() => setAsked(true)))}>
        Try again now
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
