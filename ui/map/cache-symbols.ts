/**
 * Cache types drawn as inline SVG on a hexagon (stations are round or
 * square), from this project's own simple glyphs: no emoji or font.
 */
import { pixelText } from "./symbols.ts";

const W = "#fff";
const f = (d: string, fill = W) => `<path d="${d}" fill="${fill}"/>`;
const s = (d: string, width = 1.6) => `<path d="${d}" fill="none" stroke="${W}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round"/>`;

const TYPES: Record<string, { bg: string; art: string; name: string }> = {
  traditional: {
    name: "Traditional cache",
    bg: "#2e7d32",
    art: f("M5.5 9.5 12 6.5 18.5 9.5V16.5L12 19.5 5.5 16.5Z") + s("M5.8 9.6 12 12.5 18.2 9.6M12 12.5V19.2", 1.2).replace(W, "#2e7d32"),
  },
  multi: { name: "Multi-cache", bg: "#ef6c00", art: f("M4 9.5 8.5 7.5 13 9.5V14.5L8.5 16.5 4 14.5Z") + f("M11 12 15.5 10 20 12V17L15.5 19 11 17Z") },
  mystery: { name: "Mystery cache", bg: "#1565c0", art: pixelText("?", 8.5, 6.5, 2.4, W) },
  letterbox: {
    name: "Letterbox",
    bg: "#4527a0",
    art: f("M5 7.5H19V16.5H5Z") + `<path d="M5.3 7.9 12 12.6 18.7 7.9" fill="none" stroke="#4527a0" stroke-width="1.5"/>`,
  },
  virtual: {
    name: "Virtual cache",
    bg: "#00838f",
    art:
      s("M7 18.5V11A5 5 0 0 1 17 11V18.5L15.3 17 13.7 18.5 12 17 10.3 18.5 8.7 17Z", 1.5) +
      `<circle cx="10.2" cy="11" r="1.1" fill="${W}"/><circle cx="13.8" cy="11" r="1.1" fill="${W}"/>`,
  },
  event: { name: "Event", bg: "#ad1457", art: s("M7 19V5", 1.8) + f("M7.8 5.5H17.5L15.5 8.5 17.5 11.5H7.8Z") },
  audio: { name: "Audio cache", bg: "#6a1b9a", art: s("M6.5 14V12A5.5 5.5 0 0 1 17.5 12V14", 1.6) + f("M5 13.5H8.5V18.5H5ZM15.5 13.5H19V18.5H15.5Z") },
  earth: {
    name: "EarthCache",
    bg: "#6d4c41",
    art:
      `<circle cx="12" cy="12" r="6.5" fill="none" stroke="${W}" stroke-width="1.5"/>` +
      s("M5.8 10H18.2M5.8 14H18.2M12 5.5Q8.5 12 12 18.5M12 5.5Q15.5 12 12 18.5", 1.1),
  },
  webcam: { name: "Webcam cache", bg: "#37474f", art: f("M4.5 9H15V16H4.5ZM15.5 11.2 19.5 9V16L15.5 13.8Z") },
  living: {
    name: "Living cache (a station)",
    bg: "#00695c",
    art:
      f("M11.2 9H12.8L15.6 19H14.1L12 12.6 9.9 19H8.4Z") +
      s("M8.8 5.4Q7 7.6 8.8 9.8M15.2 5.4Q17 7.6 15.2 9.8", 1.3) +
      `<circle cx="12" cy="7.6" r="1.4" fill="${W}"/>`,
  },
  other: { name: "Other cache", bg: "#546e7a", art: f("M12 6 18 12 12 18 6 12Z") },
};

export function cacheSvg(type: string, size = 24): string {
  const t = TYPES[type] ?? TYPES.other!;
  return (
    `<svg class="cache-glyph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="${size}" height="${size}" role="img" aria-label="${t.name}">` +
    `<path d="M12 1 21.5 6.5V17.5L12 23 2.5 17.5V6.5Z" fill="${t.bg}" stroke="${W}" stroke-width="1.5" stroke-linejoin="round"/>${t.art}</svg>`
  );
}
