/**
 * Whether this page is a secure context (https, or localhost), and what the
 * app says where it is not. Browsers run service workers, Cache Storage,
 * installed apps, push and passkeys only in a secure context; a phone opening
 * the gateway as http://<LAN address>:8080 is not one. Every place that
 * offers one of these asks here, so the app never offers what cannot work
 * and always says why. IndexedDB works either way: field notes are kept.
 */
import type { ComponentChildren } from "preact";
import { t } from "./i18n/i18n.ts";
import { Rich } from "./i18n/rich.tsx";

/** The gateway's page on setting up HTTPS (its local CA and how to trust it). */
export const TLS_PAGE = "/tls";

/** Whether the browser treats this page as secure (https, localhost, 127.0.0.1). */
export function secureContext(): boolean {
  return typeof window === "undefined" || window.isSecureContext !== false;
}

/**
 * A link to a page the server answers (/tls), not the web app: the click
 * stays away from the app's router (preact-iso's, listening on window), so
 * the browser loads the page.
 */
export function ServerLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <a href={href} onClick={(e) => e.stopPropagation()}>
      {children}
    </a>
  );
}

/** The one line shown instead of "Save area for offline" and installing on an insecure origin. */
export function InsecureNotice() {
  return (
    <p class="notice insecure-notice" role="note" data-testid="insecure-notice">
      <Rich k="secure.insecure" parts={[(s) => <ServerLink href={TLS_PAGE}>{s}</ServerLink>]} />
    </p>
  );
}

/** Why passkeys cannot work on this page, and where they would; null when they can. */
export interface PasskeyBlock {
  reason: string;
  /** a link that helps: the HTTPS setup page, or this page on localhost */
  href?: string;
  link?: string;
}

const IP_HOST = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

export function passkeyBlock(loc: Pick<Location, "protocol" | "hostname" | "port" | "pathname" | "search"> = location): PasskeyBlock | null {
  if (!secureContext()) return { reason: t("secure.plainHttp"), href: TLS_PAGE, link: t("secure.setUp") };
  if (IP_HOST.test(loc.hostname)) {
    if (LOOPBACK.test(loc.hostname)) {
      const there = `${loc.protocol}//localhost${loc.port ? `:${loc.port}` : ""}${loc.pathname}${loc.search}`;
      return { reason: t("secure.needName"), href: there, link: t("secure.open", { where: there.replace(/^https?:\/\//, "").replace(/\/$/, "") }) };
    }
    return { reason: t("secure.needHostName") };
  }
  if (typeof window !== "undefined" && !("PublicKeyCredential" in window)) {
    return { reason: t("secure.noWebauthn") };
  }
  return null;
}

/** Said beside passkey buttons that cannot work here. */
export function PasskeyNotice({ block }: { block: PasskeyBlock }) {
  return (
    <p class="notice passkey-unavailable" role="note" data-testid="passkey-unavailable">
      {block.reason}
      {block.href && (
        <>
          {" "}
          <ServerLink href={block.href}>{block.link}</ServerLink>
        </>
      )}
    </p>
  );
}
