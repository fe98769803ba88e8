/** The sysop's forwarding page: partners (adjacent BBSes) and the rules that route mail to them. */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api, type ApiError } from "../api.ts";
import { useAction, useLoad } from "../hooks.ts";
import type { Partner, Rule } from "../../src/bbs/partners.ts";
import type { SessionReport as Report } from "../../src/bbs/fbb/session.ts";
import { t } from "../i18n/i18n.ts";

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
  const { run, errorView } = useAction();
  const [report, setReport] = useState<{ call: string; report: Report } | null>(null);
  const again = () => setReload((n) => n + 1);
  const act = (fn: () => Promise<unknown>) =>
    run(async () => {
      await fn();
      again();
    });

  if (partners.error) {
    const e = partners.error as ApiError;
    return (
      <section class="page">
        <h1>{t("sysop.title")}</h1>
        <p class="error">{e.status === 401 ? t("sysop.signIn") : e.message}</p>
      </section>
    );
  }
  if (!partners.data)
    return (
      <section class="page">
        <p class="muted">{t("state.loadingPlain")}</p>
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
    const el = e.target as HTMLInputElement;
    setP((s) => ({ ...s, [k]: el.type === "checkbox" ? el.checked : el.value }));
  };
  const setR_ = (k: keyof typeof blankRule) => (e: Event) => setR((s) => ({ ...s, [k]: (e.target as HTMLInputElement).value }));

  return (
    <section class="page">
      <h1>{t("sysop.title")}</h1>
      <p class="muted">{partners.data.bbs ? t("sysop.thisBbs", { ha: partners.data.bbs.ha }) : t("sysop.noCall")}</p>
      {errorView}
      {report ? (
        <p class={report.report.ok ? "ok" : "error"} data-testid="report">
          {t("sysop.report", {
            call: report.call,
            result: report.report.ok ? t("sysop.sessionDone") : report.report.error,
            received: report.report.received.filter((x) => x.result === "stored").length,
            sent: report.report.sent.filter((x) => x.outcome === "sent").length,
          })}
          {report.report.compression ? ` (${report.report.compression === "none" ? "ASCII" : report.report.compression.toUpperCase()})` : ""}
        </p>
      ) : null}

      <h2>{t("sysop.partners")}</h2>
      <table class="table stacked" data-testid="partners">
        <thead>
          <tr>
            <th>{t("sysop.call")}</th>
            <th>{t("sysop.link")}</th>
            <th>{t("sysop.schedule")}</th>
            <th>{t("sysop.waiting")}</th>
            <th>{t("sysop.lastCall")}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {partners.data.partners.map((x) => (
            <tr>
              <td data-label={t("sysop.call")}>
                {x.call}
                {x.enabled ? "" : t("sysop.off")}
              </td>
              <td data-label={t("sysop.link")}>
                {t("sysop.over", { protocol: x.protocol, transport: x.transport })}
                {x.host ? ` ${x.host}:${x.port}` : ""}
                {x.ax25Call ? t("sysop.toCall", { call: x.ax25Call }) : ""}
                {x.ax25Call && x.via.length ? t("sysop.via", { via: x.via.join(",") }) : ""}
              </td>
              <td data-label={t("sysop.schedule")}>
                {t("sysop.every", { span: t("time.min", { count: x.intervalMin }) })}
                {x.timeBands.length ? `, ${x.timeBands.join(" ")} UTC` : ""}; {x.types}
                {x.poll ? t("sysop.polled") : ""}
              </td>
              <td data-label={t("sysop.waiting")}>{x.pending}</td>
              <td data-label={t("sysop.lastCall")}>
                <When at={x.lastAttemptAt} />
                {x.lastError ? <div class="error">{x.lastError}</div> : null}
              </td>
              <td class="actions">
                {x.transport !== "box" ? (
                  <button type="button" onClick={() => forwardNow(x)}>
                    {t("sysop.forwardNow")}
                  </button>
                ) : null}{" "}
                <button type="button" onClick={() => act(() => api(`/api/bbs/partners/${x.id}`, { method: "POST", json: { enabled: !x.enabled } }))}>
                  {x.enabled ? t("sysop.switchOff") : t("sysop.switchOn")}
                </button>{" "}
                <button type="button" onClick={() => act(() => api(`/api/bbs/partners/${x.id}`, { method: "DELETE" }))}>
                  {t("sysop.remove")}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={addPartner} class="card">
        <h3>{t("sysop.addPartner")}</h3>
        <label for="p-call">{t("sysop.callsign")}</label>
        <input id="p-call" required value={p.call} onInput={setP_("call")} />
        <label for="p-protocol">{t("sysop.protocol")}</label>
        <select id="p-protocol" value={p.protocol} onChange={setP_("protocol")}>
          <option value="fbb-b1">{t("sysop.fbbB1")}</option>
          <option value="fbb-ascii">{t("sysop.fbbAscii")}</option>
        </select>
        <label for="p-transport">{t("sysop.transport")}</label>
        <select id="p-transport" value={p.transport} onChange={setP_("transport")}>
          <option value="tcp">{t("sysop.tcp")}</option>
          <option value="box">{t("sysop.box")}</option>
          <option value="ax25">{t("sysop.ax25")}</option>
        </select>
        {p.transport === "tcp" ? (
          <>
            <label for="p-host">{t("sysop.host")}</label>
            <input id="p-host" value={p.host} onInput={setP_("host")} />
            <label for="p-port">{t("sysop.port")}</label>
            <input id="p-port" inputMode="numeric" value={p.port} onInput={setP_("port")} />
          </>
        ) : null}
        {p.transport === "ax25" ? (
          <>
            <label for="p-ax25">{t("sysop.ax25Call")}</label>
            <input id="p-ax25" value={p.ax25Call} onInput={setP_("ax25Call")} />
            <label for="p-via">{t("sysop.digis")}</label>
            <input id="p-via" value={p.via} onInput={setP_("via")} />
          </>
        ) : null}
        <label for="p-password">{t("sysop.password")}</label>
        <input id="p-password" type="password" value={p.password} onInput={setP_("password")} />
        <label for="p-interval">{t("sysop.interval")}</label>
        <input id="p-interval" inputMode="numeric" value={p.intervalMin} onInput={setP_("intervalMin")} />
        <label for="p-bands">{t("sysop.bands")}</label>
        <input id="p-bands" value={p.timeBands} onInput={setP_("timeBands")} />
        <label for="p-types">{t("sysop.types")}</label>
        <input id="p-types" value={p.types} onInput={setP_("types")} />
        <label class="check">
          <input type="checkbox" checked={p.poll} onChange={setP_("poll")} /> {t("sysop.poll")}
        </label>
        <p>
          <button class="primary" type="submit">
            {t("sysop.addPartnerButton")}
          </button>
        </p>
      </form>

      <h2>{t("sysop.rules")}</h2>
      <table class="table stacked" data-testid="rules">
        <thead>
          <tr>
            <th>{t("sysop.partner")}</th>
            <th>{t("sysop.matches")}</th>
            <th>{t("sysop.typesCol")}</th>
            <th>{t("sysop.priority")}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.data?.rules.map((x) => (
            <tr>
              <td data-label={t("sysop.partner")}>{x.partner}</td>
              <td data-label={t("sysop.matches")}>
                {x.field === "to" ? t("sysop.ruleTo") : "@ "}
                {x.pattern}
              </td>
              <td data-label={t("sysop.typesCol")}>{x.types}</td>
              <td data-label={t("sysop.priority")}>{x.priority}</td>
              <td>
                <button type="button" onClick={() => act(() => api(`/api/bbs/forward/${x.id}`, { method: "DELETE" }))}>
                  {t("sysop.remove")}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={addRule} class="card">
        <h3>{t("sysop.addRule")}</h3>
        <label for="r-partner">{t("sysop.partner")}</label>
        <select id="r-partner" required value={r.partner} onChange={setR_("partner")}>
          <option value="">{t("sysop.choose")}</option>
          {partners.data.partners.map((x) => (
            <option value={x.call}>{x.call}</option>
          ))}
        </select>
        <label for="r-field">{t("sysop.match")}</label>
        <select id="r-field" value={r.field} onChange={setR_("field")}>
          <option value="at">{t("sysop.fieldAt")}</option>
          <option value="to">{t("sysop.fieldTo")}</option>
        </select>
        <label for="r-pattern">{t("sysop.pattern")}</label>
        <input id="r-pattern" required value={r.pattern} onInput={setR_("pattern")} />
        <label for="r-types">{t("sysop.types")}</label>
        <input id="r-types" value={r.types} onInput={setR_("types")} />
        <label for="r-priority">{t("sysop.priorityLabel")}</label>
        <input id="r-priority" inputMode="numeric" value={r.priority} onInput={setR_("priority")} />
        <p>
          <button class="primary" type="submit">
            {t("sysop.addRuleButton")}
          </button>
        </p>
      </form>
    </section>
  );
}
