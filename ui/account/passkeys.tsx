import { api } from "../api.ts";
import { loadAccount } from "./session.ts";
import { When } from "../time.tsx";
import { createPasskey } from "./signin.tsx";
import { PasskeyNotice, passkeyBlock } from "../secure-context.tsx";
import { Section, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";
import { useAction } from "../hooks.ts";

export function PasskeysSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const noPasskeys = passkeyBlock();
  const add = () => run(async () => onChange(await createPasskey("passkey " + (account.passkeys.length + 1))));
  const remove = (id: string) =>
    confirm(t("account.removePasskey")) &&
    run(async () => {
      await api("/auth/passkey/remove", { method: "POST", json: { id } });
      onChange((await loadAccount())!);
    });
  return (
    <Section title={t("account.passkeys")} id="passkeys">
      {account.passkeys.length === 0 ? (
        <p class="muted">{t("account.noPasskeys")}</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>{t("account.passkey")}</th>
              <th>{t("account.added")}</th>
              <th>{t("account.lastUsed")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {account.passkeys.map((p) => (
              <tr>
                <td>{p.label ?? t("account.passkey")}</td>
                <td>
                  <When at={p.createdAt} />
                </td>
                <td>
                  <When at={p.lastUsedAt} />
                </td>
                <td>
                  <button type="button" disabled={busy} onClick={() => remove(p.id)}>
                    {t("account.remove")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {noPasskeys && <PasskeyNotice block={noPasskeys} />}
      <button type="button" disabled={busy || !!noPasskeys} onClick={add}>
        {t("account.addPasskey")}
      </button>
      {errorView}
    </Section>
  );
}
