/** E-mail address and the opt-in public profile. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";
import { useAction } from "../hooks.ts";

/** The start of an address, the same in every language. */
const URL_START = "https://";

export function ProfileSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const [p, setP] = useState(account.profile);
  const [saved, setSaved] = useState(false);
  const field = (k: "about" | "grid" | "url") => ({
    value: p[k] ?? "",
    onInput: (e: Event) => (setSaved(false), setP({ ...p, [k]: (e.target as HTMLInputElement).value })),
  });
  const save = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const r = await api<{ profile: typeof p }>("/auth/profile", {
        method: "POST",
        json: { public: p.public, about: p.about ?? "", grid: p.grid ?? "", url: p.url ?? "" },
      });
      setP(r.profile);
      onChange({ ...account, profile: r.profile });
      setSaved(true);
    });
  };
  return (
    <Section title={t("account.profile")} id="profile">
      <p class="muted">{t("profile.intro")}</p>
      <form onSubmit={save}>
        <label class="check">
          <input type="checkbox" checked={p.public} onChange={(e) => (setSaved(false), setP({ ...p, public: (e.target as HTMLInputElement).checked }))} />{" "}
          {t("profile.publish")}
        </label>
        <label for="profile-about">{t("profile.about")}</label>
        <textarea id="profile-about" maxLength={280} rows={3} {...field("about")} />
        <label for="profile-grid">{t("profile.grid")}</label>
        <input id="profile-grid" placeholder="FN42" maxLength={6} {...field("grid")} />
        <label for="profile-url">{t("profile.link")}</label>
        <input id="profile-url" type="url" placeholder={URL_START} {...field("url")} />
        <div>
          <button class="primary" type="submit" disabled={busy}>
            {t("profile.save")}
          </button>
          {saved && <span role="status">{t("profile.saved")}</span>}
        </div>
      </form>
      {errorView}
    </Section>
  );
}
