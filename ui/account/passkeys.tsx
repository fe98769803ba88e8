import { api } from "../api.ts";
import { loadAccount } from "./session.ts";
import { When } from "../time.tsx";
import { createPasskey } from "./signin.tsx";
import { PasskeyNotice, passkeyBlock } from "../secure-context.tsx";
import { Section, useAction, type SectionProps } from "./ui.tsx";

export function PasskeysSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const noPasskeys = passkeyBlock();
  const add = () => run(async () => onChange(await createPasskey("passkey " + (account.passkeys.length + 1))));
  const remove = (id: string) =>
    confirm("Remove this passkey? You can no longer sign in with it.") &&
    run(async () => {
      await api("/auth/passkey/remove", { method: "POST", json: { id } });
      onChange((await loadAccount())!);
    });
  return (
    <Section title="Passkeys" id="passkeys">
      {account.passkeys.length === 0 ? (
        <p class="muted">No passkeys yet: you sign in by e-mail.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Passkey</th>
              <th>Added</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {account.passkeys.map((p) => (
              <tr>
                <td>{p.label ?? "passkey"}</td>
                <td>
                  <When at={p.createdAt} />
                </td>
                <td>
                  <When at={p.lastUsedAt} />
                </td>
                <td>
                  <button type="button" disabled={busy} onClick={() => remove(p.id)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {noPasskeys && <PasskeyNotice block={noPasskeys} />}
      <button type="button" disabled={busy || !!noPasskeys} onClick={add}>
        Add a passkey on this device
      </button>
      {errorView}
    </Section>
  );
}
