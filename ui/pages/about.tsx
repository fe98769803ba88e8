import { api, clientConfig } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { Failed } from "../components/states.tsx";
import { lang, t } from "../i18n/i18n.ts";

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
      <h1>{t("about.title")}</h1>
      <p>
        <strong>{cfg.data?.instance ?? "…"}</strong> {t("about.intro")}
      </p>
      <h2 id="privacy">{t("about.privacy")}</h2>
      <p>{t("about.noTracking")}</p>
      {privacy.data && (
        <>
          {lang() !== "en" && <p class="muted">{t("about.serverLanguage")}</p>}
          <h3>{t("about.visitor")}</h3>
          <ul>
            {privacy.data.visitor.map((v) => (
              <li>{t("about.visitorItem", { what: v.what, when: v.when, kept: v.kept })}</li>
            ))}
          </ul>
          <h3>{t("about.requests")}</h3>
          {privacy.data.thirdPartyRequests.length === 0 ? (
            <p>{t("about.noRequests")}</p>
          ) : (
            <ul>
              {privacy.data.thirdPartyRequests.map((r) => (
                <li>
                  <code>{r.host}</code>: {r.why}
                </li>
              ))}
            </ul>
          )}
          <h3>{t("about.retention")}</h3>
          <table class="table">
            <thead>
              <tr>
                <th>{t("about.data")}</th>
                <th>{t("about.keptFor")}</th>
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
          <h3>{t("about.never")}</h3>
          <ul>
            {privacy.data.never.map((n) => (
              <li>{n}</li>
            ))}
          </ul>
        </>
      )}
      {privacy.error && <Failed error={privacy.error} what={t("about.thePrivacy")} />}
      <h2>{t("about.source")}</h2>
      {source.data && (
        <p>
          {t("about.version", { version: source.data.version })}
          {source.data.commit ? (
            <>
              {" "}
              {t("about.atCommit")} <code>{source.data.commit.slice(0, 12)}</code>
            </>
          ) : null}
          {t("about.licensed", { licence: source.data.licence })} <a href="/source">{t("about.browse")}</a>.
        </p>
      )}
    </section>
  );
}
