/**
 * Where a station's APRS symbol is drawn on its page and in search results.
 * Today it shows the symbol's two-character code (table and symbol) as text;
 * the drawn SVG symbol set slots in here.
 */
export function StationSymbol({ symbol }: { symbol?: string | null }) {
  if (!symbol) return null;
  return (
    <span class="station-symbol" data-symbol={symbol} title={`APRS symbol ${symbol}`}>
      {symbol}
    </span>
  );
}
