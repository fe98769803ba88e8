/** The hint (ROT13 until asked) and the form a player logs a visit with. */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAction } from "../../hooks.ts";
import { OFFLINE_KINDS, useLogKinds } from "../maintenance.tsx";
import type { NoteKind } from "../../offline/db.ts";
import { postLog } from "../../offline/post-log.ts";
import { logKindLabel } from "../labels.ts";
import { t } from "../../i18n/i18n.ts";
import { Rich } from "../../i18n/rich.tsx";
import type { LogBody, LogKind } from "../../../src/game/model.ts";

/** ROT13, as geocaching hints are traditionally shown. */
export const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= "Z" ? 65 : 97)));

/** A log kind in the interface's language (ui/i18n logKind.*). */
const kindLabel = logKindLabel;

export function Hint({ hint }: { hint: string }) {
  const [clear, setClear] = useState(false);
  return (
    <div class="hint">
      <h2>{t("cache.hint")}</h2>
      <p data-testid="hint">{clear ? hint : rot13(hint)}</p>
      <button type="button" onClick={() => setClear(!clear)}>
        {clear ? t("logForm.encode") : t("logForm.decode")}
      </button>
    </div>
  );
}

/** `found`: the signed-in user already has a find here, so a further log is a note by default. */
export function LogForm({
  cache,
  owner,
  found,
  onDone,
}: {
  cache: { key: string; code: string; name: string };
  owner: boolean;
  found: boolean;
  onDone: () => void;
}) {
  const [kind, setKind] = useState<LogKind>(owner || found ? "note" : "find");
  // the kinds this user may log here now (maintenance.tsx), asked again after each log: a status change changes them
  const [sent, setSent] = useState(0);
  const kinds = useLogKinds(cache.key, owner, sent);
  const [text, setText] = useState("");
  const { run, errorView } = useAction();
  const [kept, setKept] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setKept(false);
    await run(async () => {
      // find, DNF and note may wait offline as field notes; the owner's and reviewer's kinds are sent now or refused
      const r = OFFLINE_KINDS.includes(kind)
        ? await postLog(cache, kind as NoteKind, text)
        : (await api(`/api/caches/${encodeURIComponent(cache.key)}/logs`, { method: "POST", json: { kind, text: text || undefined } satisfies LogBody }),
          "sent");
      setText("");
      setSent(sent + 1);
      if (!OFFLINE_KINDS.includes(kind)) setKind("note");
      setKept(r !== "sent");
      // kept by this page: nothing answers for the logbook until the network returns
      if (r !== "kept-here") onDone();
    });
  };
  return (
    <form class="card log-form" id="log-form" onSubmit={submit}>
      <h2>{t("cache.logVisit")}</h2>
      <label for="log-kind">{t("logForm.type")}</label>
      <select id="log-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as LogKind)}>
        {kinds.map((k) => (
          <option value={k}>{kindLabel(k)}</option>
        ))}
      </select>
      <label for="log-text">{t("logForm.log")}</label>
      <textarea id="log-text" rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      <p>
        <button class="primary" type="submit">
          {t("logForm.post")}
        </button>
      </p>
      {kept && (
        <p role="status" data-testid="log-kept">
          <Rich k="logForm.kept" parts={[(s) => <a href="/offline">{s}</a>]} />
        </p>
      )}
      {errorView}
    </form>
  );
}
