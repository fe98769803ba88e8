/** A strip under the header: offline, field notes waiting, a new version ready. */
import { applyUpdate, useOfflineState } from "./status.ts";
import { secureContext } from "../secure-context.tsx";
import "./offline.css";

export function OfflineBar() {
  const st = useOfflineState();
  const n = st.pending.length;
  if (st.online && !n && !st.updateReady) return null;
  return (
    <div class="offline-bar" data-testid="offline-bar">
      {!st.online && (
        <p role="status" class="offline-state" data-testid="offline-state">
          <b>Offline.</b>{" "}
          {secureContext()
            ? "Showing what this browser saved: the app, saved areas and your field notes."
            : "Logs you post are kept in this browser as field notes and sent when the network returns."}
        </p>
      )}
      {n > 0 && (
        <p data-testid="pending-notes">
          <a href="/offline">
            {n} field {n === 1 ? "note" : "notes"} waiting to be sent
          </a>
          {st.online ? " (sending…)" : " when the network returns."}
        </p>
      )}
      {st.updateReady && (
        <p role="alert" data-testid="update-ready">
          A new version is ready:{" "}
          <button type="button" onClick={applyUpdate}>
            Reload
          </button>
        </p>
      )}
    </div>
  );
}
