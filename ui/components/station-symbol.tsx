/**
 * A station's APRS symbol where it is named (its page heading, search
 * results, lists): the same inline SVG the map draws (ui/map/symbols.ts),
 * never the two-character code as text. The code stays in data-symbol.
 */
import { symbolSvg } from "../map/symbols.ts";

export function StationSymbol({ symbol, size = 20 }: { symbol?: string | null; size?: number }) {
  if (!symbol) return null;
  // symbolSvg escapes everything it writes from the symbol (a name from a fixed table).
  return <span class="station-symbol" data-symbol={symbol} dangerouslySetInnerHTML={{ __html: symbolSvg(symbol, size) }} />;
}
