import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { MapArchivesSection } from "../map/archives-section.tsx";
import { GettingStarted } from "./getting-started.tsx";

interface SetupState {
  needed: boolean;
  restartNeeded?: boolean;
  /** why signing and transmitting are paused (an unset clock); message null when the clock is sane */
  clock?: { sane: boolean; message: string | null };
  values: { instance: string; operator: string; aprsCall: string; tileUrl: string; radioCall: string; kissPorts: string };
}

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
          <input id="operator" name="operator" defaultValue={v.operator} placeholder="N0CALL" />
          <label for="aprsCall">APRS service callsign</label>
          <input id="aprsCall" name="aprsCall" defaultValue={v.aprsCall} placeholder="N0CALL-10" />
          <label for="tileUrl">Map tiles (URL template, or "off")</label>
          <input id="tileUrl" name="tileUrl" defaultValue={v.tileUrl || "off"} size={50} />
          <label for="radioCall">Radio callsign (RADIO_CALL; empty = receive only)</label>
          <input id="radioCall" name="radioCall" defaultValue={v.radioCall} placeholder="N0CALL-10" />
          <label for="kissPorts">Radio TNC ports (KISS_PORTS)</label>
          <input id="kissPorts" name="kissPorts" defaultValue={v.kissPorts} placeholder="tcp://127.0.0.1:8001, serial:/dev/ttyUSB0@9600, or off" size={50} />
          <p class="muted">Empty uses Direwolf's KISS port on this machine when it runs. Transmitting needs the radio callsign verified (APRS challenge).</p>
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

/** The clock's line: shown only while it is not set (signing and transmitting wait for it). */
function ClockLine({ state }: { state: SetupState }) {
  if (!state.clock?.message) return null;
  return (
    <p class="error" role="alert" data-clock>
      {state.clock.message}
    </p>
  );
}
