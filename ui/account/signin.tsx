/** Signing in: with a passkey, or with a link or code sent by e-mail. No passwords. */
import { useEffect, useState } from "preact/hooks";
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { api } from "../api.ts";
import { useAction } from "../hooks.ts";
import type { Account } from "./session.ts";
import { PasskeyNotice, passkeyBlock } from "../secure-context.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

const strong = (s: string) => <strong>{s}</strong>;

function passkeyError(e: unknown): string {
  const name = (e as { name?: string })?.name;
  if (name === "NotAllowedError") return t("signin.cancelled");
  if (name === "InvalidStateError") return t("signin.alreadyHas");
  return (e as Error)?.message ?? String(e);
}

/** Asks the browser for a new passkey: for a new account, or for the signed-in one. */
export async function createPasskey(label?: string): Promise<Account> {
  const optionsJSON = await api<any>("/auth/passkey/register/options", { method: "POST", json: {} });
  const credential = await startRegistration({ optionsJSON });
  return (await api<{ account: Account }>("/auth/passkey/register/verify", { method: "POST", json: { credential, label } })).account;
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: (a: Account) => void; notice?: string | null }) {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [via, setVia] = useState<"smtp" | "log">("log");
  const [code, setCode] = useState("");
  const { run, busy, errorView } = useAction();
  const noPasskeys = passkeyBlock();

  const withPasskey = () =>
    run(async () => {
      const optionsJSON = await api<any>("/auth/passkey/login/options", { method: "POST", json: {} });
      const credential = await startAuthentication({ optionsJSON });
      onSignedIn((await api<{ account: Account }>("/auth/passkey/login/verify", { method: "POST", json: { credential } })).account);
    }, passkeyError);
  const newAccount = () => run(async () => onSignedIn(await createPasskey("first passkey")), passkeyError);
  const sendMail = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const r = await api<{ via?: "smtp" | "log" }>("/auth/email/start", { method: "POST", json: { email } });
      setVia(r.via === "smtp" ? "smtp" : "log");
      setSentTo(email.trim().toLowerCase());
    });
  };
  const useCode = (e: Event) => {
    e.preventDefault();
    run(async () => onSignedIn((await api<{ account: Account }>("/auth/email/verify", { method: "POST", json: { email: sentTo, code } })).account));
  };

  return (
    <section class="page signin">
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <h1>{t("signin.title")}</h1>
      <p class="muted">{t("signin.noPasswords")}</p>
      <div class="cards">
        <div class="card">
          <h2>{t("signin.passkey")}</h2>
          {noPasskeys && <PasskeyNotice block={noPasskeys} />}
          <button type="button" class="primary" disabled={busy || !!noPasskeys} onClick={withPasskey}>
            {t("signin.withPasskey")}
          </button>
          <p class="muted">{t("signin.newHere")}</p>
          <button type="button" disabled={busy || !!noPasskeys} onClick={newAccount}>
            {t("signin.create")}
          </button>
        </div>
        <div class="card">
          <h2>{t("signin.email")}</h2>
          {sentTo === null ? (
            <form onSubmit={sendMail}>
              <label for="signin-email">{t("signin.address")}</label>
              <input
                id="signin-email"
                type="email"
                required
                autocomplete="email"
                value={email}
                onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
              />
              <button class="primary" type="submit" disabled={busy}>
                {t("signin.send")}
              </button>
            </form>
          ) : (
            <form onSubmit={useCode}>
              {via === "smtp" ? (
                <p role="status">
                  <Rich k="signin.sent" vars={{ to: sentTo }} parts={[strong]} />
                </p>
              ) : (
                <p role="status" class="notice" data-testid="mail-in-log">
                  <Rich k="signin.inLog" vars={{ to: sentTo }} parts={[strong]} />
                </p>
              )}
              <label for="signin-code">{via === "smtp" ? t("signin.codeFromMail") : t("signin.code")}</label>
              <input
                id="signin-code"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9]{6}"
                maxLength={6}
                required
                value={code}
                onInput={(e) => setCode((e.target as HTMLInputElement).value)}
              />
              <button class="primary" type="submit" disabled={busy}>
                {t("signin.signIn")}
              </button>{" "}
              <button type="button" onClick={() => setSentTo(null)}>
                {t("signin.another")}
              </button>
            </form>
          )}
        </div>
      </div>
      {errorView}
    </section>
  );
}

/** /signin/email#<token>: the page the e-mailed link opens. */
export function EmailLinkPage() {
  const [state, setState] = useState<{ error?: string; done?: boolean }>({});
  useEffect(() => {
    const token = location.hash.slice(1);
    history.replaceState(null, "", location.pathname);
    api("/auth/email/verify", { method: "POST", json: { token } }).then(
      () => {
        setState({ done: true });
        location.assign("/account");
      },
      (e) => setState({ error: (e as Error).message }),
    );
  }, []);
  return (
    <section class="page">
      <h1>{t("signin.signingIn")}</h1>
      {state.error && (
        <p class="error" role="alert">
          {state.error} <a href="/account">{t("signin.back")}</a>
        </p>
      )}
      {state.done && <p role="status">{t("signin.signedIn")}</p>}
    </section>
  );
}
