/**
 * After set-up: the operator's next steps, each with a live check of what the
 * API can tell (restart, sign in, verified callsign, a connected TNC, peers).
 */
import { api } from "../api.ts";
import { useLoad, usePoll } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { radioPorts } from "../radio/types.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

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

const code = (s: string) => <code>{s}</code>;
const link = (href: string) => (s: string) => <a href={href}>{s}</a>;

export function GettingStarted() {
  const tick = usePoll(5000);
  const setup = useLoad(() => api<{ needed: boolean; restartNeeded?: boolean }>("/api/setup"), [tick]);
  const account = useLoad(loadAccount, [tick]);
  const who = useLoad(() => api<{ operator: boolean; locked?: boolean }>("/api/admin/whoami"), [tick]);
  const ports = useLoad(() => api<{ ports: Array<Record<string, unknown>> }>("/api/ports"), [tick]);
  const operator = who.data?.operator === true;
  const peers = useLoad(() => (operator ? api<{ peers: unknown[] }>("/federation/peers") : Promise.resolve(null)), [tick, operator]);

  const unknown = (what: string): Check => ({ ok: null, detail: t("start.checking", { what: t(what) }) });
  const restart: Check = !setup.data
    ? unknown("start.theSettings")
    : setup.data.needed
      ? { ok: false, detail: t("start.notSaved") }
      : setup.data.restartNeeded
        ? { ok: false, detail: t("start.restartNeeded") }
        : { ok: true, detail: t("start.running") };
  const acct = account.data;
  const signin: Check =
    account.loading && !account.data && !account.error
      ? unknown("start.yourSession")
      : acct
        ? { ok: true, detail: acct.call ? t("start.signedInAs", { call: acct.call }) : t("start.signedIn") }
        : { ok: false, detail: t("start.notSignedIn") };
  const verified: Check = !acct
    ? { ok: false, detail: t("start.signInFirst") }
    : !acct.call
      ? { ok: false, detail: t("start.noCall") }
      : !acct.verified
        ? { ok: false, detail: t("start.notVerified", { call: acct.call }) }
        : operator
          ? { ok: true, detail: t("start.verifiedOperator", { call: acct.call }) }
          : { ok: true, detail: t("start.verifiedNotAdmin", { call: acct.call }) };
  const radio = ports.data ? radioPorts(ports.data.ports) : null;
  const up = radio?.find((p) => p.portState === "connected");
  const tnc: Check = !radio
    ? unknown("start.theRadio")
    : radio.length === 0
      ? { ok: false, detail: t("start.noPort") }
      : up
        ? { ok: true, detail: up.call ? t("start.tncUp", { port: up.name, call: up.call }) : t("start.tncUpRx", { port: up.name }) }
        : { ok: false, detail: t("start.noTnc", { ports: radio.map((p) => p.name).join(", ") }) };
  const peerList = peers.data?.peers;
  const fed: Check = !operator
    ? { ok: null, detail: t("start.peersOperatorOnly") }
    : !peerList
      ? unknown("start.thePeers")
      : peerList.length > 0
        ? { ok: true, detail: t("start.peers", { count: peerList.length }) }
        : { ok: false, detail: t("start.noPeers") };

  return (
    <div class="card getting-started" data-testid="getting-started">
      <h2>{t("start.title")}</h2>
      <ol class="steps">
        <Step id="restart" title={t("start.restartTitle")} check={restart}>
          <p>
            <Rich k="start.restartHow" parts={[code]} />
          </p>
        </Step>
        <Step id="signin" title={t("start.signInTitle")} check={signin}>
          <p>
            <Rich k="start.signInHow" parts={[link("/account")]} />
          </p>
        </Step>
        <Step id="verify" title={t("start.verifyTitle")} check={verified}>
          <p>
            <Rich k="start.verifyHow" parts={[link("/account"), code]} />
          </p>
        </Step>
        <Step id="tnc" title={t("start.tncTitle")} check={tnc}>
          <p>
            <Rich k="start.tncHow" parts={[code, code, code, link("/radio")]} />
          </p>
        </Step>
        <Step id="peers" title={t("start.peersTitle")} check={fed}>
          <p>{operator ? <Rich k="start.peersHow" parts={[link("/peers"), code]} /> : t("start.peersByOperator")}</p>
        </Step>
      </ol>
    </div>
  );
}
