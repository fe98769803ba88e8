/**
 * The NET/ROM NODES table on the radio page: every route, best first per
 * node, learnt from broadcasts heard or entered by the sysop, who can add a
 * route and remove any (POST /api/node/nodes).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import type { NodesView, RadioPort } from "./types.ts";
import { When } from "../time.tsx";

const blank = { call: "", alias: "", neighbour: "", quality: "150", port: "" };

export function NodesCard({ tick, sysop, ports }: { tick: number; sysop: boolean; ports: RadioPort[] }) {
  const [version, setVersion] = useState(0);
  const nodes = useLoad(() => api<NodesView>("/api/node/nodes"), [tick, version]);
  const [form, setForm] = useState(blank);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (body: Record<string, unknown>, after?: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await api("/api/node/nodes", { method: "POST", json: body });
      after?.();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      setVersion((n) => n + 1);
    }
  };
  const field = (k: keyof typeof blank) => ({
    value: form[k],
    onInput: (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value }),
  });
  const d = nodes.data;
  // routes come best first per node: the first of each node is the one its traffic takes
  const best = new Set<string>();
  const routes = (d?.routes ?? []).map((r) => {
    const first = !best.has(r.call);
    best.add(r.call);
    return { ...r, best: first };
  });
  const several = new Set(routes.filter((r) => !r.best).map((r) => r.call));
  return (
    <div class="card">
      <h2>Nodes</h2>
      {d && (
        <p class="muted" data-testid="node">
          {d.node ? (
            <>
              This station is node <b>{d.node.alias}</b> ({d.node.call}),{" "}
              {d.node.broadcastMinutes > 0 ? `broadcasting NODES every ${d.node.broadcastMinutes} min` : "not broadcasting NODES"}; last broadcast{" "}
              <When at={d.node.lastBroadcastAt} />.
            </>
          ) : (
            "This station is no NET/ROM node (NODE_ALIAS unset); routes heard in other nodes' broadcasts are still listed."
          )}
        </p>
      )}
      {nodes.error && <p class="error">{nodes.error.message}</p>}
      {d && routes.length === 0 && <p class="muted">No nodes known yet.</p>}
      {routes.length > 0 && (
        <div class="table-scroll">
          <table class="table" data-testid="nodes">
            <thead>
              <tr>
                <th>alias</th>
                <th>node</th>
                <th>neighbour</th>
                <th>quality</th>
                <th>port</th>
                <th>source</th>
                <th>updated</th>
                {sysop && <th />}
              </tr>
            </thead>
            <tbody>
              {routes.map((r) => (
                <tr data-node={r.call} data-neighbour={r.neighbour} class={r.best ? "" : "muted"}>
                  <td>
                    <b>{r.alias || "—"}</b>
                  </td>
                  <td>{r.call}</td>
                  <td>
                    {r.neighbour === r.call ? <span title="heard directly">{r.neighbour} (direct)</span> : r.neighbour}
                    {several.has(r.call) && r.best && (
                      <>
                        {" "}
                        <span class="tag">best</span>
                      </>
                    )}
                  </td>
                  <td data-testid="quality">{r.quality}</td>
                  <td>{r.port ? <code>{r.port}</code> : <span class="muted">any</span>}</td>
                  <td>{r.source}</td>
                  <td>
                    <When at={r.updatedAt} />
                  </td>
                  {sysop && (
                    <td>
                      <button
                        type="button"
                        disabled={busy}
                        aria-label={`remove the route to ${r.call} via ${r.neighbour}`}
                        onClick={() => void act({ call: r.call, neighbour: r.neighbour, remove: true })}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {sysop && (
        <form
          class="inline"
          aria-label="add a route"
          onSubmit={(e) => {
            e.preventDefault();
            const q = Number(form.quality);
            void act(
              {
                call: form.call.trim(),
                alias: form.alias.trim(),
                neighbour: form.neighbour.trim(),
                quality: Number.isInteger(q) ? q : form.quality,
                ...(form.port ? { port: form.port } : {}),
              },
              () => setForm(blank),
            );
          }}
        >
          <label>Add a route (heard routes age out after 6 hours; routes you add stay until removed)</label>
          <input aria-label="node callsign" placeholder="node N0FAR-7" required {...field("call")} />
          <input aria-label="node alias" placeholder="alias FAR" maxLength={6} size={8} {...field("alias")} />
          <input aria-label="neighbour callsign" placeholder="via neighbour N0NBR-7" required {...field("neighbour")} />
          <input aria-label="quality" type="number" min={0} max={255} size={5} {...field("quality")} />
          {ports.length > 0 && (
            <select aria-label="port" {...field("port")}>
              <option value="">any port</option>
              {ports.map((p) => (
                <option value={p.name}>{p.name}</option>
              ))}
            </select>
          )}
          <button type="submit" class="primary" disabled={busy}>
            Add route
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
