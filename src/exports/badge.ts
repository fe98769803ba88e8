/** An embeddable SVG badge of a callsign's game record: `/badge/N0CALL.svg`. */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";
import { gameProfile } from "../game/account-data.ts";
import { esc } from "./xml.ts";
import { translator } from "../i18n/server.ts";

/** Rough width of text in 11 px Verdana-like fonts (the badge's font), for layout without a font engine. */
const width = (s: string) => Math.round(s.length * 6.6 + 12);

/** The badge in `lang`'s words (src/i18n: the Accept-Language of the page that shows it). */
export function badgeSvg(gw: Core, rawCall: string, lang = "en"): string {
  const t = translator(lang);
  if (!isCallsign(rawCall)) throw badRequest("invalid", "the badge's name is a callsign: /badge/N0CALL.svg");
  const call = baseCall(rawCall);
  const s = gameProfile.build(gw, call) as { finds: number; tierA: number; hidden: number } | null;
  const right = s
    ? [t("badge.finds", { count: s.finds }), t("badge.rf", { count: s.tierA }), t("badge.hidden", { count: s.hidden })].join(" · ")
    : t("badge.none");
  const l = width(call);
  const r = width(right);
  const title = t("badge.title", { call, instance: gw.config.instance, what: right });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${l + r}" height="20" role="img" aria-label="${esc(title)}">
  <title>${esc(title)}</title>
  <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
  <clipPath id="r"><rect width="${l + r}" height="20" rx="3" fill="#fff"/></clipPath>
  <g clip-path="url(#r)">
    <rect width="${l}" height="20" fill="#555"/>
    <rect x="${l}" width="${r}" height="20" fill="#0b6e4f"/>
    <rect width="${l + r}" height="20" fill="url(#s)"/>
  </g>
  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
    <text x="${l / 2}" y="14">${esc(call)}</text>
    <text x="${l + r / 2}" y="14">${esc(right)}</text>
  </g>
</svg>
`;
}
