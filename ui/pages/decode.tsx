import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { units } from "../components/units.ts";
import { packetReadings } from "../stations/readings.tsx";
import { t } from "../i18n/i18n.ts";

/** What the box takes, as an example: a TNC2 line is the same in every language. */
const EXAMPLE_PACKET = "N0CALL-9>APRS,WIDE1-1:!4237.14N/07120.83W>088/036";

/** Paste a raw TNC2 line, see what it carries. */
export function DecodePage() {
  const [line, setLine] = useState("");
  const [out, setOut] = useState<Record<string, unknown> | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const pref = units();
  const run = async (e: Event) => {
    e.preventDefault();
    setErr(null);
    setOut(null);
    try {
      setOut(await api<Record<string, unknown>>("/api/decode", { method: "POST", headers: { "content-type": "text/plain" }, body: line }));
    } catch (x) {
      setErr(x instanceof ApiError ? `${x.code}: ${x.message}` : String(x));
    }
  };
  return (
    <section class="page">
      <h1>{t("decode.title")}</h1>
      <form onSubmit={run}>
        <label>
          {t("decode.line")}
          <textarea name="line" rows={3} value={line} onInput={(e) => setLine((e.target as HTMLTextAreaElement).value)} placeholder={EXAMPLE_PACKET} />
        </label>
        <button type="submit">{t("decode.decode")}</button>
      </form>
      {err && (
        <p class="error" role="alert">
          {err}
        </p>
      )}
      {out && (
        <table class="table kv" data-testid="decoded">
          <tbody>
            {packetReadings(out, pref).map(([label, v]) => (
              <tr>
                <th scope="row">{label}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
