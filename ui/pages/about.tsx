import { api, clientConfig } from "../api.ts";
import { useLoad } from "../hooks.ts";

interface Privacy {
  visitor: Array<{ what: string; when: string; kept: string }>;
  thirdPartyRequests: Array<{ host: string; why: string }>;
  retention: Array<{ what: string; kept: string; setting?: string }>;
  never: string[];
  yourRights: Array<{ what: string; how: string }>;
}
interface Source {
  repository: string;
  commit: string | null;
  tag: string | null;
  licence: string;
  version: string;
  tree: string;
}

export function AboutPage() {
  const cfg = useLoad(clientConfig);
  const privacy = useLoad(() => api<Privacy>("/privacy"));
  const source = useLoad(() => api<Source>("/.well-known/source"));
  return (
    <section class="page prose">
      <h1>About this gateway</h1>
      <p>
        <strong>{cfg.data?.instance ?? "…"}</strong> is an svc-gateway: a registry of amateur-radio stations heard on APRS, a geocaching game on top of it, and
        a store-and-forward bulletin board, federated with other gateways through signed records.
      </p>
      <h2 id="privacy">Privacy</h2>
      <p>No analytics, no advertising, no trackers.</p>
      {privacy.data && (
        <>
          <h3>What we keep about you as a visitor</h3>
          <ul>
            {privacy.data.visitor.map((v) => (
              <li>
                {v.what}: {v.when}; kept {v.kept}.
              </li>
            ))}
          </ul>
          <h3>Requests to other servers</h3>
          {privacy.data.thirdPartyRequests.length === 0 ? (
            <p>None: every request goes to this gateway only.</p>
          ) : (
            <ul>
              {privacy.data.thirdPartyRequests.map((t) => (
                <li>
                  <code>{t.host}</code>: {t.why}
                </li>
              ))}
            </ul>
          )}
          <h3>How long data is kept</h3>
          <table class="table">
            <thead>
              <tr>
                <th>Data</th>
                <th>Kept for</th>
              </tr>
            </thead>
            <tbody>
              {privacy.data.retention.map((r) => (
                <tr>
                  <td>{r.what}</td>
                  <td>{r.kept}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Never</h3>
          <ul>
            {privacy.data.never.map((n) => (
              <li>{n}</li>
            ))}
          </ul>
        </>
      )}
      {privacy.error && <p class="error">Could not load the privacy statement: {privacy.error.message}</p>}
      <h2>Source</h2>
      {source.data && (
        <p>
          Version {source.data.version}
          {source.data.commit ? (
            <>
              {" "}
              at commit <code>{source.data.commit.slice(0, 12)}</code>
            </>
          ) : null}
          , licensed {source.data.licence}. <a href="/source">Browse the running source</a>.
        </p>
      )}
    </section>
  );
}
