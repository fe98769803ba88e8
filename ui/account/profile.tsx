/** E-mail address and the opt-in public profile. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";

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
      <p class="muted">Off unless you turn it on. It is shown for your verified callsign only; there is no name or address field, and no directory.</p>
      <form onSubmit={save}>
        <label class="check">
          <input type="checkbox" checked={p.public} onChange={(e) => (setSaved(false), setP({ ...p, public: (e.target as HTMLInputElement).checked }))} />{" "}
          Publish my profile
        </label>
        <label for="profile-about">About (280 characters)</label>
        <textarea id="profile-about" maxLength={280} rows={3} {...field("about")} />
        <label for="profile-grid">Grid locator</label>
        <input id="profile-grid" placeholder="FN42" maxLength={6} {...field("grid")} />
        <label for="profile-url">Link (https)</label>
        <input id="profile-url" type="url" placeholder="https://" {...field("url")} />
        <div>
          <button class="primary" type="submit" disabled={busy}>
            Save profile
          </button>
          {saved && <span role="status"> Saved.</span>}
        </div>
      </form>
      {errorView}
    </Section>
  );
}
