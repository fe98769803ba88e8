import { t } from "../i18n/i18n.ts";

export function NotFound() {
  return (
    <section class="page">
      <h1>{t("state.notFound")}</h1>
      <p>
        {t("state.noPage")} <a href="/map">{t("state.mapLink")}</a>.
      </p>
    </section>
  );
}
