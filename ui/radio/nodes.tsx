/**
 * The NET/ROM NODES table on the radio page: every route, best first per
 * node, learnt from broadcasts heard or entered by the sysop, who can add a
 * route and remove any (POST /api/node/nodes).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useAction, useLoad } from "../hooks.ts";
import { DataTable } from "../components/data-table.tsx";
import type { NodesView, RadioPort } from "./types.ts";
import { When } from "../time.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

const blank = { call: "", alias: "", neighbour: "", quality: "150", port: "" };

export function NodesCard({ tick, sysop, ports }: { tick: number; sysop: boolean; ports: RadioPort[] }) {
  const [version, setVersion] = useState(0);
  const nodes = useLoad(() => api<NodesView>("/api/node/nodes"), [tick, version]);
  const [form, setForm] = useState(blank);
  const { run, busy, errorView } = useAction();
  const act = async (body: Record<string, unknown>, after?: () => void) => {
    await run(async () => {
      await api("/api/node/nodes", { method: "POST", json: body });
      after?.();
    });
    setVersion((n) => n + 1);
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
      <h2>{t("radioNodes.title")}</h2>
      {d && (
        <p class="muted" data-testid="node">
          {d.node ? (
            <>
              <Rich
                k="radioNodes.isNode"
                vars={{
                  alias: d.node.alias,
                  call: d.node.call,
                  broadcast:
                    d.node.broadcastMinutes > 0
                      ? t("radioNodes.broadcasting", { span: t("time.min", { count: d.node.broadcastMinutes }) })
                      : t("radioNodes.notBroadcasting"),
                }}
                parts={[(x) => <b>{x}</b>]}
              />{" "}
              <When at={d.node.lastBroadcastAt} />.
            </>
          ) : (
            t("radioNodes.noNode")
          )}
        </p>
      )}
      {nodes.error && <p class="error">{nodes.error.message}</p>}
      {d && (
        <DataTable
          testid="nodes"
          head={[
            t("radioNodes.alias"),
            t("radioNodes.node"),
            t("radioNodes.neighbour"),
            t("radioNodes.quality"),
            t("radioNodes.port"),
            t("radioNodes.source"),
            t("radioNodes.updated"),
            ...(sysop ? [""] : []),
          ]}
          rows={routes}
          empty={t("radioNodes.none")}
          rowAttrs={(r) => ({ "data-node": r.call, "data-neighbour": r.neighbour, class: r.best ? "" : "muted" })}
          cells={(r) => [
            <b>{r.alias || "—"}</b>,
            r.call,
            <>
              {r.neighbour === r.call ? <span title={t("radioNodes.heardDirectly")}>{t("radioNodes.direct", { call: r.neighbour })}</span> : r.neighbour}
              {several.has(r.call) && r.best && (
                <>
                  {" "}
                  <span class="tag">{t("radioNodes.best")}</span>
                </>
              )}
            </>,
            <span data-testid="quality">{r.quality}</span>,
            r.port ? <code>{r.port}</code> : <span class="muted">{t("radioNodes.any")}</span>,
            t(`radioNodes.sourceName.${r.source}`, { defaultValue: r.source }),
            <When at={r.updatedAt} />,
            ...(sysop
              ? [
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={t("radioNodes.removeLabel", { call: r.call, neighbour: r.neighbour })}
                    onClick={() => void act({ call: r.call, neighbour: r.neighbour, remove: true })}
                  >
                    {t("radioNodes.remove")}
                  </button>,
                ]
              : []),
          ]}
        />
      )}
      {sysop && (
        <form
          class="inline"
          aria-label={t("radioNodes.addLabel")}
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
          <label>{t("radioNodes.addIntro")}</label>
          <input aria-label={t("radioNodes.nodeCall")} placeholder={t("radioNodes.nodeCallPh")} required {...field("call")} />
          <input aria-label={t("radioNodes.nodeAlias")} placeholder={t("radioNodes.nodeAliasPh")} maxLength={6} size={8} {...field("alias")} />
          <input aria-label={t("radioNodes.neighbourCall")} placeholder={t("radioNodes.neighbourPh")} required {...field("neighbour")} />
          <input aria-label={t("radioNodes.quality")} type="number" min={0} max={255} size={5} {...field("quality")} />
          {ports.length > 0 && (
            <select aria-label={t("radioNodes.port")} {...field("port")}>
              <option value="">{t("radioNodes.anyPort")}</option>
              {ports.map((p) => (
                <option value={p.name}>{p.name}</option>
              ))}
            </select>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {t("radioNodes.addButton")}
          </button>
        </form>
      )}
      {errorView}
    </div>
  );
}
