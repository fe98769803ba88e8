/** The sysop's forwarding page: partners (adjacent BBSes) and the rules that route mail to them. */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api, type ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import type { Partner, Rule } from "../../src/bbs/partners.ts";
import type { SessionReport as Report } from "../../src/bbs/fbb/session.ts";

const blankPartner = {
  call: "",
  protocol: "fbb-b1",
  transport: "tcp",
  host: "",
  port: "",
  ax25Call: "",
  via: "",
  password: "",
  intervalMin: "60",
  timeBands: "",
  types: "PBT",
  poll: false,
};
const blankRule = { partner: "", field: "at", pattern: "", types: "PBT", priority: "100" };

export function ForwardingPage() {
  const [reload, setReload] = useState(0);
  const partners = useLoad(() => api<{ bbs: { call: string; ha: string } | null; partners: Partner[] }>("/api/bbs/partners"), [reload]);
  const rules = useLoad(() => api<{ rules: Rule[] }>("/api/bbs/forward"), [reload]);
  const [p, setP] = useState(blankPartner);
  const [r, setR] = useState(blankRule);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<{ call: string; report: Report } | null>(null);
  const again = () => setReload((n) => n + 1);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      again();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (partners.error) {
    const e = partners.error as ApiError;
    return (
      <section class="page">
        <h1>BBS forwarding</h1>
        <p class="error">{e.status === 401 ? "Sign in as this instance's operator." : e.message}</p>
      </section>
    );
  }
  if (!partners.data)
    return (
      <section class="page">
        <p class="muted">Loading…</p>
      </section>
    );

  const addPartner = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await api("/api/bbs/partners", {
        method: "POST",
        json: {
          call: p.call,
          protocol: p.protocol,
          transport: p.transport,
          host: p.transport === "tcp" ? p.host : undefined,
          port: p.transport === "tcp" ? Number(p.port) : undefined,
          ax25Call: p.transport === "ax25" && p.ax25Call ? p.ax25Call : undefined,
          via: p.transport === "ax25" ? p.via.split(/[\s,]+/).filter(Boolean) : undefined,
          password: p.password || undefined,
          intervalMin: Number(p.intervalMin),
          timeBands: p.timeBands.split(/[\s,]+/).filter(Boolean),
          types: p.types,
          poll: p.poll,
        },
      });
      setP(blankPartner);
    });
  };
  const addRule = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await api("/api/bbs/forward", {
        method: "POST",
        json: { partner: r.partner, field: r.field, pattern: r.pattern, types: r.types, priority: Number(r.priority) },
      });
      setR({ ...blankRule, partner: r.partner });
    });
  };
  const forwardNow = (x: Partner) =>
    act(async () => {
      const rep = await api<Report>(`/api/bbs/partners/${x.id}/forward`, { method: "POST", json: {} });
      setReport({ call: x.call, report: rep });
    });
  const setP_ = (k: keyof typeof blankPartner) => (e: Event) => {
    const t = e.target as HTMLInputElement;
    setP((s) => ({ ...s, [k]: t.type === "checkbox" ? t.checked : t.value }));
  };
  const setR_ = (k: keyof typeof blankRule) => (e: Event) => setR((s) => ({ ...s, [k]: (e.target as HTMLInputElement).value }));

  return (
    <section class="page">
      <h1>BBS forwarding</h1>
      <p class="muted">This BBS: {partners.data.bbs ? partners.data.bbs.ha : "no callsign (set BBS_HA), so mail is not forwarded"}.</p>
      {error ? <p class="error">{error}</p> : null}
      {report ? (
        <p class={report.report.ok ? "ok" : "error"} data-testid="report">
          {report.call}: {report.report.ok ? "session done" : report.report.error}; received{" "}
          {report.report.received.filter((x) => x.result === "stored").length}, sent {report.report.sent.filter((x) => x.outcome === "sent").length}
          {report.report.compression ? ` (${report.report.compression === "none" ? "ASCII" : report.report.compression.toUpperCase()})` : ""}
        </p>
      ) : null}

      <h2>Partners</h2>
      <table class="table stacked" data-testid="partners">
        <thead>
          <tr>
            <th>Call</th>
            <th>Link</th>
            <th>Schedule</th>
            <th>Waiting</th>
            <th>Last call</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {partners.data.partners.map((x) => (
            <tr>
              <td data-label="Call">
                {x.call}
                {x.enabled ? "" : " (off)"}
              </td>
              <td data-label="Link">
                {x.protocol} over {x.transport}
                {x.host ? ` ${x.host}:${x.port}` : ""}
                {x.ax25Call ? ` to ${x.ax25Call}${x.via.length ? ` via ${x.via.join(",")}` : ""}` : ""}
              </td>
              <td data-label="Schedule">
                every {x.intervalMin} min{x.timeBands.length ? `, ${x.timeBands.join(" ")} UTC` : ""}; {x.types}
                {x.poll ? ", polled" : ""}
              </td>
              <td data-label="Waiting">{x.pending}</td>
              <td data-label="Last call">
                <When at={x.lastAttemptAt} />
                {x.lastError ? <div class="error">{x.lastError}</div> : null}
              </td>
              <td class="actions">
                {x.transport !== "box" ? (
                  <button type="button" onClick={() => forwardNow(x)}>
                    Forward now
                  </button>
                ) : null}{" "}
                <button type="button" onClick={() => act(() => api(`/api/bbs/partners/${x.id}`, { method: "POST", json: { enabled: !x.enabled } }))}>
                  {x.enabled ? "Switch off" : "Switch on"}
                </button>{" "}
                <button type="button" onClick={() => act(() => api(`/api/bbs/partners/${x.id}`, { method: "DELETE" }))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={addPartner} class="card">
        <h3>Add a partner</h3>
        <label for="p-call">Callsign</label>
        <input id="p-call" required value={p.call} onInput={setP_("call")} />
        <label for="p-protocol">Protocol</label>
        <select id="p-protocol" value={p.protocol} onChange={setP_("protocol")}>
          <option value="fbb-b1">FBB, B1 compressed</option>
          <option value="fbb-ascii">FBB, ASCII</option>
        </select>
        <label for="p-transport">Transport</label>
        <select id="p-transport" value={p.transport} onChange={setP_("transport")}>
          <option value="tcp">TCP (telnet)</option>
          <option value="box">the ingest box's radio</option>
          <option value="ax25">AX.25 from this instance</option>
        </select>
        {p.transport === "tcp" ? (
          <>
            <label for="p-host">Host</label>
            <input id="p-host" value={p.host} onInput={setP_("host")} />
            <label for="p-port">Port</label>
            <input id="p-port" inputMode="numeric" value={p.port} onInput={setP_("port")} />
          </>
        ) : null}
        {p.transport === "ax25" ? (
          <>
            <label for="p-ax25">Its call-SSID on the air (empty = the callsign above)</label>
            <input id="p-ax25" value={p.ax25Call} onInput={setP_("ax25Call")} />
            <label for="p-via">Digipeaters (e.g. RELAY WIDE2-1; empty = direct)</label>
            <input id="p-via" value={p.via} onInput={setP_("via")} />
          </>
        ) : null}
        <label for="p-password">Password (optional; telnet only)</label>
        <input id="p-password" type="password" value={p.password} onInput={setP_("password")} />
        <label for="p-interval">Minutes between calls</label>
        <input id="p-interval" inputMode="numeric" value={p.intervalMin} onInput={setP_("intervalMin")} />
        <label for="p-bands">Time-bands (UTC, e.g. 22:00-06:00; empty = any time)</label>
        <input id="p-bands" value={p.timeBands} onInput={setP_("timeBands")} />
        <label for="p-types">Message types</label>
        <input id="p-types" value={p.types} onInput={setP_("types")} />
        <label class="check">
          <input type="checkbox" checked={p.poll} onChange={setP_("poll")} /> Call even with nothing to send
        </label>
        <p>
          <button class="primary" type="submit">
            Add partner
          </button>
        </p>
      </form>

      <h2>Rules</h2>
      <table class="table stacked" data-testid="rules">
        <thead>
          <tr>
            <th>Partner</th>
            <th>Matches</th>
            <th>Types</th>
            <th>Priority</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.data?.rules.map((x) => (
            <tr>
              <td data-label="Partner">{x.partner}</td>
              <td data-label="Matches">
                {x.field === "to" ? "to " : "@ "}
                {x.pattern}
              </td>
              <td data-label="Types">{x.types}</td>
              <td data-label="Priority">{x.priority}</td>
              <td>
                <button type="button" onClick={() => act(() => api(`/api/bbs/forward/${x.id}`, { method: "DELETE" }))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={addRule} class="card">
        <h3>Add a rule</h3>
        <label for="r-partner">Partner</label>
        <select id="r-partner" required value={r.partner} onChange={setR_("partner")}>
          <option value="">(choose)</option>
          {partners.data.partners.map((x) => (
            <option value={x.call}>{x.call}</option>
          ))}
        </select>
        <label for="r-field">Match</label>
        <select id="r-field" value={r.field} onChange={setR_("field")}>
          <option value="at">the @ route (BBS, #region, country, continent, WW)</option>
          <option value="to">the addressee or bulletin category</option>
        </select>
        <label for="r-pattern">Pattern (e.g. N0BBS, #NCA, USA, NOAM, WW, SM*, *)</label>
        <input id="r-pattern" required value={r.pattern} onInput={setR_("pattern")} />
        <label for="r-types">Message types</label>
        <input id="r-types" value={r.types} onInput={setR_("types")} />
        <label for="r-priority">Priority (lower wins)</label>
        <input id="r-priority" inputMode="numeric" value={r.priority} onInput={setR_("priority")} />
        <p>
          <button class="primary" type="submit">
            Add rule
          </button>
        </p>
      </form>
    </section>
  );
}
