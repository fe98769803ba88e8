/**
 * A translated sentence with links or code inside: the file writes the parts
 * as numbered tags ("<0>Sign in</0> with a passkey"), and the page says what
 * each number becomes, so a translation can move them within the sentence.
 */
import type { ComponentChildren } from "preact";
import { t } from "./i18n.ts";

export function Rich({ k, vars, parts }: { k: string; vars?: Record<string, unknown>; parts: Array<(text: string) => ComponentChildren> }) {
  const out: ComponentChildren[] = [];
  const text = t(k, vars);
  const tag = /<(\d+)>(.*?)<\/\1>/g;
  let at = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    out.push(text.slice(at, m.index));
    const part = parts[Number(m[1])];
    out.push(part ? part(m[2]!) : m[2]);
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return <>{out}</>;
}
