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

type Trust = "trusted" | "unvetted" | "blocked";
interface Endpoint {
  transport: string;
  address: string;
  priority: number;
}
interface Peer {
  instance: string;
  trust: Trust;
  trustSetBy: string | null;
  foundVia: string | null;
  verifiedVia: string | null;
  syncUrl: string | null;
  endpoints: Endpoint[];
  keyPin: string | null;
  repConfirmed: number;
  repFailed: number;
  mirrored: number;
  health: {
    status: string;
    lastSyncAt: number | null;
    lastOkAt: number | null;
    lastError: string | null;
    failures: number;
    framesApplied: number;
    framesRejected: number;
  };
}
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
        <h1>Peers</h1>
        <p class="notice" data-testid="peers-locked">
          {e.status === 401
            ? "Sign in as one of this instance's operators to manage its peers."
            : e.status === 403
              ? "Only this instance's operators (ADMIN_CALLSIGNS, verified) manage its peers."
              : e.message}
        </p>
      </section>
    );
  }
  return (
    <section class="page">
      <div class="page-head">
        <h1>Peers</h1>
        {list.data && <span class="muted">{list.data.instance}</span>}
      </div>
      {list.loading && !list.data && <p class="muted">Loading…</p>}
      {list.data && <PeerTable peers={list.data.peers} reload={reload} />}
      <Add44net reload={reload} />
      <FederatedCaches key={n} />
      {list.data && list.data.quarantined.length > 0 && (
        <>
          <h2>Quarantined origins</h2>
          <p class="muted">Frames from these instances arrived but were never applied (unknown or blocked).</p>
          <table class="table" data-testid="quarantine">
            <thead>
              <tr>
                <th>origin</th>
                <th>why</th>
                <th>frames</th>
                <th>last</th>
              </tr>
            </thead>
            <tbody>
              {list.data.quarantined.map((q) => (
                <tr>
                  <td>{q.origin}</td>
                  <td>{q.reason}</td>
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
    if (trust === "blocked" && !confirm(`Block ${instance}? Everything mirrored from it is deleted and it is never pulled again.`)) return reload();
    try {
      await api("/federation/peers/trust", { method: "POST", json: { instance, trust } });
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
    reload();
  };
  if (peers.length === 0) return <p class="muted">No peers yet. List trusted instances in FED_PEERS, or add a 44net peer below.</p>;
  return (
    <>
      {error && <p class="error">{error}</p>}
      <table class="table" data-testid="peers">
        <thead>
          <tr>
            <th>instance</th>
            <th>trust</th>
            <th>health</th>
            <th>reputation</th>
            <th>endpoints</th>
            <th>mirrored</th>
          </tr>
        </thead>
        <tbody>
          {peers.map((p) => (
            <tr data-peer={p.instance}>
              <td>
                <b>{p.instance}</b>
                <div class="muted">
                  {p.foundVia ? `found via ${p.foundVia}` : ""}
                  {p.verifiedVia ? ` · verified via ${p.verifiedVia}` : ""}
                </div>
              </td>
              <td>
                <select
                  aria-label={`trust of ${p.instance}`}
                  value={p.trust}
                  onChange={(e) => setTrust(p.instance, (e.target as HTMLSelectElement).value as Trust)}
                >
                  <option value="trusted">trusted</option>
                  <option value="unvetted">unvetted</option>
                  <option value="blocked">blocked</option>
                </select>
                {p.trustSetBy && <div class="muted">set by {p.trustSetBy}</div>}
              </td>
              <td>
                <span class={p.health.status === "ok" ? "ok" : p.health.status === "failing" ? "warn" : "muted"} data-testid="health">
                  {p.health.status}
                </span>
                <div class="muted">
                  last ok <When at={p.health.lastOkAt} />
                </div>
                {p.health.lastError && <div class="error">{p.health.lastError}</div>}
                {p.health.failures > 0 && <div class="muted">{p.health.failures} failed in a row</div>}
              </td>
              <td data-testid="reputation">
                ✓ {p.repConfirmed} · ✗ {p.repFailed}
              </td>
              <td>
                {p.endpoints.length === 0 ? (
                  <span class="muted">{p.syncUrl ?? "none"}</span>
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
        setMsg({ ok: true, text: `${r.binding.instance} added (${r.binding.dnssec ? "DNSSEC-validated" : "confirmed by you"}): unvetted until you trust it.` });
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
      <h2>Add a 44net peer</h2>
      <p class="muted">Looks up the TXT record at _svc.&lt;call&gt;.ampr.org over DNS-over-HTTPS and checks the peer's live descriptor.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send(false);
        }}
      >
        <label>
          Callsign <input name="callsign" value={call} onInput={(e) => setCall((e.target as HTMLInputElement).value)} required />
        </label>{" "}
        <button type="submit" disabled={busy}>
          Look up
        </button>
      </form>
      {pending && (
        <div class="notice" data-testid="binding">
          <p>
            DNS is <b>not DNSSEC-validated</b> for {pending.host}. It binds <b>{pending.instance}</b> to key <code>{pending.key}</code> (descriptor:{" "}
            {pending.descriptor}).
          </p>
          <p>Pin this key only if you know it is theirs (ask the operator).</p>
          <button type="button" disabled={busy} onClick={() => void send(true)}>
            Confirm and pin
          </button>{" "}
          <button type="button" onClick={() => setPending(null)}>
            Cancel
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
      <h2>Federated caches</h2>
      {caches.data?.clustered && <p class="muted">More caches than can be listed here: browse them on the map.</p>}
      {caches.data && !caches.data.clustered && fed.length === 0 && <p class="muted">None mirrored yet.</p>}
      {fed.length > 0 && (
        <table class="table" data-testid="federated-caches">
          <thead>
            <tr>
              <th>cache</th>
              <th>origin</th>
              <th>trust</th>
              <th>status</th>
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
                  <span class={c.trust === "trusted" ? "tag" : "warn"}>{c.trust}</span>
                </td>
                <td>{c.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
