/** The APRS challenge for one callsign: what to send, and the status until it is heard. */
import { useEffect, useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import type { ChallengeStatus as Challenge } from "../../src/accounts/verify-aprs.ts";
import { fmtDateTime, t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { useAction } from "../hooks.ts";

export function VerifyPanel({ call, onDone, onClose }: { call: string; onDone: () => void; onClose: () => void }) {
  const [ch, setCh] = useState<Challenge | null>(null);
  const { run, busy, errorView } = useAction();
  useEffect(() => {
    run(async () => setCh(await api<Challenge>("/verify/aprs/start", { method: "POST", json: { call } })));
  }, [call]);
  // Poll while waiting: the gateway decides when it hears the message.
  useEffect(() => {
    if (ch?.status !== "pending") return;
    const t = setInterval(async () => {
      const s = await api<Challenge>(`/verify/aprs/status?call=${encodeURIComponent(ch.call)}`).catch(() => null);
      if (s) setCh(s);
    }, 2000);
    return () => clearInterval(t);
  }, [ch?.status, ch?.call]);
  useEffect(() => {
    if (ch?.status === "verified") onDone();
  }, [ch?.status]);
  const confirm = () => run(async () => setCh(await api<Challenge>("/verify/aprs/confirm", { method: "POST", json: { call: ch!.call } })));
  const again = () => run(async () => setCh(await api<Challenge>("/verify/aprs/start", { method: "POST", json: { call } })));
  return (
    <div class="card verify-panel" role="region" aria-label={t("verify.region", { call })}>
      <h3>{t("verify.title", { call: ch?.call ?? call })}</h3>
      {ch?.status === "pending" && (
        <>
          <p>
            <Rich
              k="verify.send"
              vars={{ call: ch.call, where: ch.accepts?.includes("internet") ? t("verify.internet") : t("verify.rfOnly") }}
              parts={[(s) => <strong>{s}</strong>]}
            />
          </p>
          {ch.takeover && (
            <p class="warn" role="note">
              {t("verify.takeover", { call: ch.call })}
            </p>
          )}
          <dl class="aprs-message">
            <dt>{t("verify.to")}</dt>
            <dd>
              <code>{ch.addressee}</code>
            </dd>
            <dt>{t("verify.text")}</dt>
            <dd>
              <code class="verify-code">{ch.message}</code>
            </dd>
          </dl>
          <p class="muted" role="status">
            {t("verify.waiting")} <When at={ch.expiresAt!} /> {t("verify.at", { time: fmtDateTime(ch.expiresAt!, { timeStyle: "short" }) })}
          </p>
          <button type="button" disabled={busy} onClick={confirm}>
            {t("verify.check")}
          </button>{" "}
        </>
      )}
      {ch?.status === "expired" && (
        <p>
          {t("verify.expired")}{" "}
          <button type="button" disabled={busy} onClick={again}>
            {t("verify.newCode")}
          </button>
        </p>
      )}
      {ch?.status === "verified" && (
        <p role="status" class="ok">
          {ch.heardFrom ? t("verify.verifiedFrom", { from: ch.heardFrom, via: ch.heardVia }) : t("verify.verified")}
        </p>
      )}
      <button type="button" onClick={onClose}>
        {t("verify.close")}
      </button>
      {errorView}
    </div>
  );
}
