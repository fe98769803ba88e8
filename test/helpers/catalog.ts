/**
 * Catalog files for import tests and benches: a pocket-query-like GPX 1.0
 * with the Groundspeak extension, n caches, each about `pad` bytes longer
 * than the bare listing (a long description), and the same caches as LOC.
 */
export function catalogGpx(n: number, opts: { prefix?: string; pad?: number } = {}): string {
  const prefix = opts.prefix ?? "GCB";
  const pad = "x".repeat(opts.pad ?? 0);
  const parts = [
    `<?xml version="1.0" encoding="utf-8"?>\n<gpx xmlns="http://www.topografix.com/GPX/1/0" xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1" version="1.0" creator="bench">\n`,
  ];
  for (let i = 0; i < n; i++) {
    const lat = (40 + (i % 1000) / 100).toFixed(4);
    const lon = (5 + Math.floor(i / 1000) / 10).toFixed(4);
    const desc = pad ? `<groundspeak:long_description html="False">${pad}</groundspeak:long_description>` : "";
    parts.push(
      `<wpt lat="${lat}" lon="${lon}"><name>${prefix}${i.toString(36).toUpperCase()}</name>` +
        `<groundspeak:cache available="True"><groundspeak:name>Cache ${i} &amp; co</groundspeak:name>` +
        `<groundspeak:container>Small</groundspeak:container><groundspeak:difficulty>${1 + (i % 9) / 2}</groundspeak:difficulty><groundspeak:terrain>2</groundspeak:terrain>${desc}</groundspeak:cache></wpt>\n`,
    );
  }
  parts.push("</gpx>\n");
  return parts.join("");
}

export function catalogLoc(n: number, prefix = "GCL"): string {
  const parts = [`<?xml version="1.0" encoding="UTF-8"?><loc version="1.0" src="Groundspeak">`];
  for (let i = 0; i < n; i++) {
    parts.push(
      `<waypoint><name id="${prefix}${i.toString(36).toUpperCase()}"><![CDATA[Cache ${i} by N0HID]]></name><coord lat="${(47 + i / 1e4).toFixed(5)}" lon="9.5"/><type>Geocache</type><difficulty>1.5</difficulty><terrain>1</terrain><container>2</container></waypoint>`,
    );
  }
  parts.push("</loc>");
  return parts.join("");
}
