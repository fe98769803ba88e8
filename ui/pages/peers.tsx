/**
 * Peers (sysop): the instances this gateway federates with, their trust,
 * health and reputation; set a tier; add a peer by its 44net name (with the
 * confirm step when DNS is not DNSSEC-validated); the federated caches held
 * here with their origin and trust; quarantined origins.
 */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api, type ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import type { PeerView as Peer } from "../../src/fed/admin.ts";

type Trust = "trusted" | "unvetted" | "blocked";
/** A word the server sends as an id (a health, a reason, a status), in the reader's language; an id without a translation as it is. */
const word = (table: string, id: string) => t(`${table}.${id}`, { defaultValue: id });
interface PeerList {
  instance: string;
  peers: Peer[];
  quarantined: Array<{ origin: string; reason: string; frames: number; lastAt: number }>;
}
interface Binding {
  callsign: string;
  host: string;
  instance: string;
  key: string;
  dnssec: boolean;
  descriptor: string;
}
interface FedCache {
  id: string;
  gid: string;
  name: string;
  origin: string;
  trust?: string;
  mirror: boolean;
  status: string;
}

export function PeersPage() {
  const [n, setN] = useState(0);
  const reload = () => setN(n + 1);
  const list = useLoad(() => api<PeerList>("/federation/peers"), [n]);
  if (list.error) {
    const e = list.error as ApiError;
    return (
      <section class="page">
        <h1>{t("peers.title")}</h1>
        <p class="notice" data-testid="peers-locked">
          {e.status === 401 ? t("peers.signIn") : e.status === 403 ? t("peers.operatorsOnly") : e.message}
        </p>
      </section>
    );
  }
  return (
    <section class="page">
      <div class="page-head">
        <h1>{t("peers.title")}</h1>
        {list.data && <span class="muted">{list.data.instance}</span>}
      </div>
      {list.loading && !list.data && <p class="muted">{t("state.loadingPlain")}</p>}
      {list.data && <PeerTable peers={list.data.peers} reload={reload} />}
      <Add44net reload={reload} />
      <FederatedCaches key={n} />
      {list.data && list.data.quarantined.length > 0 && (
        <>
          <h2>{t("peers.quarantined")}</h2>
          <p class="muted">{t("peers.quarantinedIntro")}</p>
          <table class="table" data-testid="quarantine">
            <thead>
              <tr>
                <th>{t("peers.origin")}</th>
                <th>{t("peers.why")}</th>
                <th>{t("peers.frames")}</th>
                <th>{t("peers.last")}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.quarantined.map((q) => (
                <tr>
                  <td>{q.origin}</td>
                  <td>{word("peers.reasonName", q.reason)}</td>
                  <td>{q.frames}</td>
                  <td>
                    <When at={q.lastAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function PeerTable({ peers, reload }: { peers: Peer[]; reload: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const setTrust = async (instance: string, trust: Trust) => {
    if (trust === "blocked" && !confirm(t("peers.blockConfirm", { instance }))) return reload();
    try {
      await api("/federation/peers/trust", { method: "POST", json: { instance, trust } });
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
    reload();
  };
  if (peers.length === 0) return <p class="muted">{t("peers.none")}</p>;
  return (
    <>
      {error && <p class="error">{error}</p>}
      <table class="table" data-testid="peers">
        <thead>
          <tr>
            <th>{t("peers.instance")}</th>
            <th>{t("peers.trust")}</th>
            <th>{t("peers.health")}</th>
            <th>{t("peers.reputation")}</th>
            <th>{t("peers.endpoints")}</th>
            <th>{t("peers.mirrored")}</th>
          </tr>
        </thead>
        <tbody>
          {peers.map((p) => (
            <tr data-peer={p.instance}>
              <td>
                <b>{p.instance}</b>
                <div class="muted">
                  {p.foundVia ? t("peers.foundVia", { via: p.foundVia }) : ""}
                  {p.verifiedVia ? t("peers.verifiedVia", { via: p.verifiedVia }) : ""}
                </div>
              </td>
              <td>
                <select
                  aria-label={t("peers.trustOf", { instance: p.instance })}
                  value={p.trust}
                  onChange={(e) => setTrust(p.instance, (e.target as HTMLSelectElement).value as Trust)}
                >
                  <option value="trusted">{t("peers.trusted")}</option>
                  <option value="unvetted">{t("peers.unvetted")}</option>
                  <option value="blocked">{t("peers.blocked")}</option>
                </select>
                {p.trustSetBy && <div class="muted">{t("peers.setBy", { by: word("peers.setByName", p.trustSetBy) })}</div>}
              </td>
              <td>
                <span class={p.health.status === "ok" ? "ok" : p.health.status === "failing" ? "warn" : "muted"} data-testid="health">
                  {word("peers.healthName", p.health.status)}
                </span>
                <div class="muted">
                  {t("peers.lastOk")} <When at={p.health.lastOkAt} />
                </div>
                {p.health.lastError && <div class="error">{p.health.lastError}</div>}
                {p.health.failures > 0 && <div class="muted">{t("peers.failedInRow", { count: p.health.failures })}</div>}
              </td>
              <td data-testid="reputation">
                ✓ {p.repConfirmed} · ✗ {p.repFailed}
              </td>
              <td>
                {p.endpoints.length === 0 ? (
                  <span class="muted">{p.syncUrl ?? t("peers.noEndpoint")}</span>
                ) : (
                  p.endpoints.map((e) => (
                    <div>
                      {e.transport}: {e.address}
                    </div>
                  ))
                )}
              </td>
              <td>{p.mirrored}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Add44net({ reload }: { reload: () => void }) {
  const [call, setCall] = useState("");
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Binding | null>(null);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const send = async (confirm: boolean) => {
    setBusy(true);
    try {
      const r = await api<{ admitted: boolean; binding: Binding }>("/federation/peers/44net", {
        method: "POST",
        json: confirm && pending ? { callsign: pending.callsign, confirm: true, key: pending.key } : { callsign: call },
      });
      if (r.admitted) {
        setPending(null);
        setMsg({ ok: true, text: t(r.binding.dnssec ? "peers.addedDnssec" : "peers.addedConfirmed", { instance: r.binding.instance }) });
        reload();
      } else {
        setPending(r.binding);
        setMsg(null);
      }
    } catch (e) {
      setMsg({ ok: false, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="card">
      <h2>{t("peers.add44net")}</h2>
      <p class="muted">{t("peers.add44netIntro")}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send(false);
        }}
      >
        <label>
          {t("peers.callsign")} <input name="callsign" value={call} onInput={(e) => setCall((e.target as HTMLInputElement).value)} required />
        </label>{" "}
        <button type="submit" disabled={busy}>
          {t("peers.lookUp")}
        </button>
      </form>
      {pending && (
        <div class="notice" data-testid="binding">
          <p>
            <Rich
              k="peers.binding"
              vars={{ host: pending.host, instance: pending.instance, key: pending.key, descriptor: pending.descriptor }}
              parts={[(s) => <b>{s}</b>, (s) => <b>{s}</b>, (s) => <code>{s}</code>]}
            />
          </p>
          <p>{t("peers.pinOnly")}</p>
          <button type="button" disabled={busy} onClick={() => void send(true)}>
            {t("peers.confirmPin")}
          </button>{" "}
          <button type="button" onClick={() => setPending(null)}>
            {t("peers.cancel")}
          </button>
        </div>
      )}
      {msg && (
        <p class={msg.ok ? "ok" : "error"} data-testid="add-result">
          {msg.text}
        </p>
      )}
    </div>
  );
}

function FederatedCaches() {
  const caches = useLoad(() => api<{ clustered: boolean; caches: FedCache[]; total: number }>("/api/caches?bbox=-180,-90,180,90&unvetted=1&limit=2000"));
  const fed = caches.data?.caches.filter((c) => c.mirror) ?? [];
  return (
    <>
      <h2>{t("peers.federated")}</h2>
      {caches.data?.clustered && <p class="muted">{t("peers.tooMany")}</p>}
      {caches.data && !caches.data.clustered && fed.length === 0 && <p class="muted">{t("peers.noneMirrored")}</p>}
      {fed.length > 0 && (
        <table class="table" data-testid="federated-caches">
          <thead>
            <tr>
              <th>{t("peers.cache")}</th>
              <th>{t("peers.origin")}</th>
              <th>{t("peers.trust")}</th>
              <th>{t("peers.statusCol")}</th>
            </tr>
          </thead>
          <tbody>
            {fed.map((c) => (
              <tr>
                <td>
                  <a href={`/cache/${encodeURIComponent(String(c.id))}`}>{c.name}</a>
                </td>
                <td>{c.origin}</td>
                <td>
                  <span class={c.trust === "trusted" ? "tag" : "warn"}>{c.trust ? word("peers.trustName", c.trust) : ""}</span>
                </td>
                <td>{word("peers.cacheStatus", c.status)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
