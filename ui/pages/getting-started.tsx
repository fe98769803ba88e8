/**
 * After set-up: the operator's next steps, each with a live check of what the
 * API can tell (restart, sign in, verified callsign, a connected TNC, peers).
 */
import { api } from "../api.ts";
import { useLoad, usePoll } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { radioPorts } from "../radio/types.ts";

type Check = { ok: boolean | null; detail: string };

function Step({ id, title, check, children }: { id: string; title: string; check: Check; children?: preact.ComponentChildren }) {
  const mark = check.ok === null ? "…" : check.ok ? "✓" : "○";
  return (
    <li data-step={id} data-ok={check.ok === null ? "unknown" : String(check.ok)}>
      <span class={check.ok ? "ok" : "muted"} aria-hidden="true">
        {mark}
      </span>{" "}
      <b>{title}</b>
      <div class="muted" data-testid="step-detail">
        {check.detail}
      </div>
      {!check.ok && children}
    </li>
  );
}

export function GettingStarted() {
  const tick = usePoll(5000);
  const setup = useLoad(() => api<{ needed: boolean; restartNeeded?: boolean }>("/api/setup"), [tick]);
  const account = useLoad(loadAccount, [tick]);
  const who = useLoad(() => api<{ operator: boolean; locked?: boolean }>("/api/admin/whoami"), [tick]);
  const ports = useLoad(() => api<{ ports: Array<Record<string, unknown>> }>("/api/ports"), [tick]);
  const operator = who.data?.operator === true;
  const peers = useLoad(() => (operator ? api<{ peers: unknown[] }>("/federation/peers") : Promise.resolve(null)), [tick, operator]);

  const unknown = (what: string): Check => ({ ok: null, detail: `checking ${what}…` });
  const restart: Check = !setup.data
    ? unknown("the settings")
    : setup.data.needed
      ? { ok: false, detail: "Set-up is not saved yet." }
      : setup.data.restartNeeded
        ? { ok: false, detail: "Settings saved; this gateway still runs on the old ones until it restarts." }
        : { ok: true, detail: "Running on the saved settings." };
  const acct = account.data;
  const signin: Check =
    account.loading && !account.data && !account.error
      ? unknown("your session")
      : acct
        ? { ok: true, detail: `Signed in${acct.call ? ` as ${acct.call}` : ""}.` }
        : { ok: false, detail: "Not signed in." };
  const verified: Check = !acct
    ? { ok: false, detail: "Sign in first." }
    : !acct.call
      ? { ok: false, detail: "No callsign on your account yet." }
      : !acct.verified
        ? { ok: false, detail: `${acct.call} is not verified yet (the APRS challenge).` }
        : operator
          ? { ok: true, detail: `${acct.call} is verified; you operate this gateway.` }
          : { ok: true, detail: `${acct.call} is verified, but it is not in ADMIN_CALLSIGNS: you do not operate this gateway.` };
  const radio = ports.data ? radioPorts(ports.data.ports) : null;
  const up = radio?.find((p) => p.portState === "connected");
  const tnc: Check = !radio
    ? unknown("the radio")
    : radio.length === 0
      ? { ok: false, detail: "No radio port (KISS_PORTS is off)." }
      : up
        ? { ok: true, detail: `TNC connected on ${up.name}${up.call ? ` as ${up.call}` : " (receive only: RADIO_CALL is not set)"}.` }
        : { ok: false, detail: `No TNC answers on ${radio.map((p) => p.name).join(", ")}.` };
  const peerList = peers.data?.peers;
  const fed: Check = !operator
    ? { ok: null, detail: "Only the operator can see the peers: sign in with a callsign in ADMIN_CALLSIGNS." }
    : !peerList
      ? unknown("the peers")
      : peerList.length > 0
        ? { ok: true, detail: `${peerList.length} peer${peerList.length === 1 ? "" : "s"}.` }
        : { ok: false, detail: "No peers yet." };

  return (
    <div class="card getting-started" data-testid="getting-started">
      <h2>Getting started</h2>
      <ol class="steps">
        <Step id="restart" title="Restart the gateway" check={restart}>
          <p>
            Restart it (<code>systemctl restart svc-gateway</code>, or stop and start the executable) so the saved settings apply.
          </p>
        </Step>
        <Step id="signin" title="Sign in" check={signin}>
          <p>
            <a href="/account">Sign in</a> with a passkey or an e-mail link.
          </p>
        </Step>
        <Step id="verify" title="Verify your callsign" check={verified}>
          <p>
            On <a href="/account">your account</a>, add your callsign and pass the APRS challenge. Put it in <code>ADMIN_CALLSIGNS</code> to operate this
            gateway.
          </p>
        </Step>
        <Step id="tnc" title="Connect a TNC" check={tnc}>
          <p>
            Run Direwolf (its KISS port is <code>tcp://127.0.0.1:8001</code>) or set <code>KISS_PORTS</code>, and <code>RADIO_CALL</code> to transmit. The{" "}
            <a href="/radio">Radio</a> page shows the port.
          </p>
        </Step>
        <Step id="peers" title="Add peers" check={fed}>
          <p>
            {operator ? (
              <>
                <a href="/peers">Peers</a>: add a 44net peer by callsign, or set <code>FED_PEERS</code>.
              </>
            ) : (
              "Peers are added by the operator."
            )}
          </p>
        </Step>
      </ol>
    </div>
  );
}
