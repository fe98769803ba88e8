/**
 * The account page: sign-in when signed out; otherwise callsigns and their
 * verification, passkeys, e-mail, profile, device keys, export and erase.
 */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { loadAccount, type Account } from "../account/session.ts";
import { SignIn } from "../account/signin.tsx";
import { type SectionProps } from "../account/ui.tsx";
import { ACCOUNT_SECTIONS } from "../account/sections.tsx";
import { LocalePicker } from "../i18n/picker.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

export function AccountPage() {
  const [version, setVersion] = useState(0);
  const loaded = useLoad(loadAccount, [version]);
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const current = account === undefined ? loaded.data : account;
  if (loaded.loading && current === undefined) return <section class="page">{t("account.loading")}</section>;
  if (loaded.error) return <section class="page error">{loaded.error.message}</section>;
  if (!current) return <SignIn notice={notice} onSignedIn={(a) => (setNotice(null), setAccount(a))} />;
  const refresh = () => {
    setAccount(undefined);
    setVersion(version + 1);
  };
  return <AccountView account={current} onChange={(a) => setAccount(a)} refresh={refresh} onSignedOut={(n) => (setNotice(n ?? null), setAccount(null))} />;
}

function AccountView(props: SectionProps) {
  const { account } = props;
  const { run, busy, errorView } = useAction();
  const who = useLoad(() => api<{ operator: boolean }>("/api/admin/whoami").catch(() => ({ operator: false })));
  const signOut = () =>
    run(async () => {
      await api("/auth/logout", { method: "POST", json: {} });
      props.onSignedOut();
    });
  return (
    <section class="page account">
      <div class="page-head">
        <h1>{t("account.title")}</h1>
        <button type="button" onClick={signOut} disabled={busy}>
          {t("account.signOut")}
        </button>
      </div>
      <p class="muted">
        {t("account.signedIn")}
        {account.call ? t("account.as", { call: account.call }) : ""}
        {account.email ? ` (${account.email})` : ""}. {t("account.created")} <When at={account.createdAt} />.
      </p>
      {who.data?.operator && (
        <p class="notice" data-testid="runs-instance">
          <Rich k="account.runsInstance" parts={[(s) => <a href="/setup">{s}</a>]} />
        </p>
      )}
      {errorView}
      <section class="card" aria-labelledby="prefs-title">
        <h2 id="prefs-title">{t("prefs.title")}</h2>
        <LocalePicker signedIn />
      </section>
      {ACCOUNT_SECTIONS.map((S) => (
        <S {...props} />
      ))}
    </section>
  );
}
