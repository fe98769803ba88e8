/** KML 2.2 for Google Earth: one Placemark per cache, styled by status. */
import type { Cache } from "../game/caches.ts";
import { groundspeakContainer, groundspeakType } from "./gpx.ts";
import { esc } from "./xml.ts";

export const KML_TYPE = "application/vnd.google-earth.kml+xml";

export function kmlDocument(caches: Cache[], o: { base: string; instance: string }): string {
  const marks = caches
    .map((c) => {
      const url = `${o.base}/cache/${encodeURIComponent(String(c.id))}`;
      const desc = `${groundspeakType(c.type)}, ${groundspeakContainer(c.size)}, D${c.difficulty}/T${c.terrain}, by ${c.ownerCall ?? c.placedBy ?? "?"}\n${url}`;
      return `    <Placemark id="${esc(c.code)}">
      <name>${esc(`${c.code} ${c.name}`)}</name>
      <description>${esc(desc)}</description>
      <styleUrl>#${c.status === "active" ? "active" : "inactive"}</styleUrl>
      <ExtendedData>
        <Data name="code"><value>${esc(c.code)}</value></Data>
        <Data name="type"><value>${esc(c.type)}</value></Data>
        <Data name="size"><value>${esc(c.size)}</value></Data>
        <Data name="difficulty"><value>${c.difficulty}</value></Data>
        <Data name="terrain"><value>${c.terrain}</value></Data>
        <Data name="status"><value>${esc(c.status)}</value></Data>
        <Data name="url"><value>${esc(url)}</value></Data>
      </ExtendedData>
      <Point><coordinates>${c.lon},${c.lat},0</coordinates></Point>
    </Placemark>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
  <Document>
    <name>${esc(`Caches from ${o.instance}`)}</name>
    <Style id="active"><IconStyle><color>ff2f9e44</color><scale>1.1</scale></IconStyle></Style>
    <Style id="inactive"><IconStyle><color>ff7f7f7f</color><scale>0.9</scale></IconStyle></Style>
${marks}
  </Document>
</kml>
`;
}
