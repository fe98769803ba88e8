/** The APRS challenge for one callsign: what to send, and the status until it is heard. */
import { useEffect, useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { useAction } from "./ui.tsx";
import type { ChallengeStatus as Challenge } from "../../src/accounts/verify-aprs.ts";

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
    <div class="card verify-panel" role="region" aria-label={`verify ${call}`}>
      <h3>Verify {ch?.call ?? call}</h3>
      {ch?.status === "pending" && (
        <>
          <p>
            Send this APRS message from <strong>{ch.call}</strong> (any SSID),{" "}
            {ch.accepts?.includes("internet")
              ? "on the air or through APRS-IS"
              : "on the air, where this gateway's radio hears it (APRS-IS does not count here)"}
            :
          </p>
          {ch.takeover && (
            <p class="warn" role="note">
              Another account verified {ch.call}. Answering this challenge on the air takes the call over: that account loses it and is told.
            </p>
          )}
          <dl class="aprs-message">
            <dt>To</dt>
            <dd>
              <code>{ch.addressee}</code>
            </dd>
            <dt>Text</dt>
            <dd>
              <code class="verify-code">{ch.message}</code>
            </dd>
          </dl>
          <p class="muted" role="status">
            Waiting to hear it… the code expires <When at={ch.expiresAt!} /> (at{" "}
            {new Date(ch.expiresAt!).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}).
          </p>
          <button type="button" disabled={busy} onClick={confirm}>
            I sent it: check now
          </button>{" "}
        </>
      )}
      {ch?.status === "expired" && (
        <p>
          The code expired.{" "}
          <button type="button" disabled={busy} onClick={again}>
            Get a new code
          </button>
        </p>
      )}
      {ch?.status === "verified" && (
        <p role="status" class="ok">
          Verified{ch.heardFrom ? `: heard from ${ch.heardFrom} (${ch.heardVia})` : ""}.
        </p>
      )}
      <button type="button" onClick={onClose}>
        Close
      </button>
      {errorView}
    </div>
  );
}
