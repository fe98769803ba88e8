/**
 * APRS symbols drawn as inline SVG, from this project's own simple glyphs:
 * no emoji, no icon font, no text element, so a symbol looks the same on a
 * machine with no fonts but the basics (a Raspberry Pi's default image).
 *
 * A symbol is a table character and a code (APRS 1.01 chapter 20): `/` the
 * primary table, `\` the alternate table, and 0-9 or A-Z the alternate
 * table with that character overlaid. Primary symbols sit on a round badge,
 * alternate ones on a rounded square; an overlay character is drawn in a
 * white corner box. Codes without a drawing of their own show the table and
 * code characters themselves, in the small pixel font below. A symbol's
 * name (its label) is in the reader's language.
 */
import { t } from "../i18n/i18n.ts";

type Glyph = { bg: string; fg?: string; art: string };

const W = "#fff";
// Badge colours by family, so a glance tells vehicles from fixed stations.
const ROAD = "#1e5aa8";
const FIXED = "#2e7d32";
const NET = "#00695c";
const SKY = "#6a1b9a";
const SEA = "#0d47a1";
const WX = "#0277bd";
const ALERT = "#c62828";
const PLACE = "#5d4037";
const PLAIN = "#546e7a";

const f = (d: string, fill = W) => `<path d="${d}" fill="${fill}"/>`;
const s = (d: string, width = 1.6, stroke = W) =>
  `<path d="${d}" fill="none" stroke="${stroke}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round"/>`;
const c = (cx: number, cy: number, r: number, fill = W) => `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"/>`;
const wheel = (cx: number, cy: number, bg: string) => `<circle cx="${cx}" cy="${cy}" r="2" fill="${bg}" stroke="${W}" stroke-width="1.3"/>`;

const car = (bg: string) =>
  f("M4 15.5V12.6L6.2 12 8 8.5H15L17.4 12 20 12.6V15.5Z") + f("M9.1 9.6H11.4V12H7.7ZM12.5 9.6H14.4L16 12H12.5Z", bg) + wheel(8, 15.5, bg) + wheel(16, 15.5, bg);
const jeep = (bg: string) =>
  f("M4 15.5V10.5H7.2L8.6 7.5H15.4L16.6 10.5H20V15.5Z") +
  f("M9.4 8.6H11.5V10.5H8.5ZM12.5 8.6H14.6L15.4 10.5H12.5Z", bg) +
  wheel(8, 15.5, bg) +
  wheel(16, 15.5, bg);
const truck = (bg: string) =>
  f("M3.5 7.5H14V15.5H3.5ZM14.7 10H18L20.5 13V15.5H14.7Z") + f("M15.4 11H17.5L19 13H15.4Z", bg) + wheel(7, 16, bg) + wheel(17.5, 16, bg);
const van = (bg: string) =>
  f("M4 15.5V8Q4 7 5 7H15.5L20 11.5V15.5Z") + f("M15 8.2L18.2 11.5H15ZM5.5 8.5H9V11H5.5ZM10 8.5H13.5V11H10Z", bg) + wheel(8, 15.5, bg) + wheel(16.5, 15.5, bg);
const bus = (bg: string) =>
  f("M3 16V7.5Q3 6.5 4 6.5H20Q21 6.5 21 7.5V16Z") +
  f("M4.5 8H7.5V11H4.5ZM8.5 8H11.5V11H8.5ZM12.5 8H15.5V11H12.5ZM16.5 8H19.5V11H16.5Z", bg) +
  wheel(7, 16, bg) +
  wheel(17, 16, bg);
const house = (bg: string) => f("M4.5 12.2 12 5.2 19.5 12.2H17.3V18.6H6.7V12.2Z") + f("M10.6 18.6V14.4H13.4V18.6Z", bg);
const building = (bg: string) =>
  f("M5.5 19V6H18.5V19Z") + f("M7.5 8H10V10.5H7.5ZM14 8H16.5V10.5H14ZM7.5 12.5H10V15H7.5ZM14 12.5H16.5V15H14ZM10.8 19V15.5H13.2V19Z", bg);
const plane = f(
  "M12 3.5C12.9 3.5 13.2 5 13.2 6.5V10L20 13.6V15.3L13.2 13.2V17L15.4 18.7V20L12 19.1 8.6 20V18.7L10.8 17V13.2L4 15.3V13.6L10.8 10V6.5C10.8 5 11.1 3.5 12 3.5Z",
);
const cloud = f("M7.2 17.5A3.5 3.5 0 0 1 7.4 10.5 4.6 4.6 0 0 1 16 9.8 3.8 3.8 0 0 1 16.8 17.5Z");
const star = f("M12 3.8 14.3 9 19.9 9.5 15.6 13.2 16.9 18.8 12 15.9 7.1 18.8 8.4 13.2 4.1 9.5 9.7 9Z");
const diamond = f("M12 4.2 19.8 12 12 19.8 4.2 12Z");
const tower =
  f("M11.2 8.5H12.8L15.8 19.2H14.2L12 12.3 9.8 19.2H8.2Z") +
  s("M8.6 4.6Q6.6 7.2 8.6 9.8M15.4 4.6Q17.4 7.2 15.4 9.8M6.3 3.4Q3.4 7.2 6.3 11M17.7 3.4Q20.6 7.2 17.7 11", 1.3) +
  c(12, 7.2, 1.4);
const boatHull = "M3.5 15H20.5L18 18.8H6Z";

/** Drawings by name; `bg` is the badge colour. */
const ART: Record<string, Glyph> = {
  car: { bg: ROAD, art: car(ROAD) },
  jeep: { bg: ROAD, art: jeep(ROAD) },
  truck: { bg: "#37474f", art: truck("#37474f") },
  van: { bg: ROAD, art: van(ROAD) },
  rv: { bg: "#6d4c41", art: van("#6d4c41") },
  bus: { bg: "#ef6c00", art: bus("#ef6c00") },
  ambulance: { bg: ALERT, art: van(ALERT) + f("M10.2 8.1H11.6V9.3H12.8V10.6H11.6V11.8H10.2V10.6H9V9.3H10.2Z", ALERT) },
  firetruck: { bg: ALERT, art: truck(ALERT) },
  motorcycle: {
    bg: ROAD,
    art:
      s("M6.5 15.5 10 10.5H14.5L17.5 15.5M13.5 8.5H15.5L14.5 10.5", 1.7) +
      f("M9.3 11.3H15.2L13.8 13.6H9.6Z") +
      `<circle cx="6.5" cy="15.5" r="2.8" fill="none" stroke="${W}" stroke-width="1.6"/><circle cx="17.5" cy="15.5" r="2.8" fill="none" stroke="${W}" stroke-width="1.6"/>`,
  },
  bike: {
    bg: "#2e7d32",
    art:
      `<circle cx="7" cy="15" r="3.3" fill="none" stroke="${W}" stroke-width="1.6"/><circle cx="17" cy="15" r="3.3" fill="none" stroke="${W}" stroke-width="1.6"/>` +
      s("M7 15 10.2 9.5H15.5M10.2 9.5 12.5 15 15.5 9.5 17 15M12.5 15H7M9 8H11.5M14.6 7.6 15.5 9.5", 1.5),
  },
  jogger: { bg: "#ad1457", art: c(13.6, 5.6, 1.9) + s("M12.8 8.6 11 13.2M9 11 12.6 9.2 15.4 11.6M11 13.2 14 15.6 13.2 19.2M11 13.2 9 16.4 6.4 16.8", 2) },
  house: { bg: FIXED, art: house(FIXED) },
  houseHf: { bg: "#558b2f", art: house("#558b2f") },
  building: { bg: PLACE, art: building(PLACE) },
  digi: { bg: FIXED, art: star },
  digiAlt: { bg: "#1b5e20", art: star },
  gateway: { bg: "#263238", art: diamond },
  igate: { bg: "#212121", art: diamond + f("M12 8.4 15.6 12 12 15.6 8.4 12Z", "#212121") },
  balloon: { bg: SKY, art: `<ellipse cx="12" cy="9" rx="5" ry="5.6" fill="${W}"/>` + s("M10.2 14 11.3 17M13.8 14 12.7 17", 1) + f("M10.4 17H13.6V19.6H10.4Z") },
  aircraft: { bg: SKY, art: plane },
  glider: {
    bg: SKY,
    art: f("M12 5C12.7 5 13 6.2 13 7.5V10.6L21 12V13.3L13 13V16.6L15 17.8V18.8L12 18.2 9 18.8V17.8L11 16.6V13L3 13.3V12L11 10.6V7.5C11 6.2 11.3 5 12 5Z"),
  },
  helicopter: {
    bg: SKY,
    art:
      `<ellipse cx="10.5" cy="13.2" rx="4.6" ry="3.2" fill="${W}"/>` +
      s("M15 13.2H20.2M20.2 11.4V15M4.6 8.4H17.4M10.6 8.4V10.2M7.6 18.6H14.4M9 16.3 8.5 18.6M12.6 16.3 13 18.6", 1.4),
  },
  yacht: { bg: SEA, art: f("M11.5 4V14H5.8Z") + f("M12.6 6 17.4 14H12.6Z") + f(boatHull) },
  ship: { bg: SEA, art: f(boatHull) + f("M8 10.2H14.8L16.4 14.2H8Z") + s("M10 6.6V10.2", 1.4) },
  phone: {
    bg: "#00838f",
    art: f(
      "M7.6 4.3 10.1 3.9 11.6 7.9 9.8 9.4C10.6 11.5 12.4 13.3 14.6 14.2L16.1 12.4 20.1 13.9 19.7 16.4C19.4 18 17.9 19 16.3 18.8 10.7 18 6 13.3 5.2 7.7 5 6.1 6 4.6 7.6 4.3Z",
    ),
  },
  tent: { bg: "#6d8b00", art: f("M12 4.6 20 18.6H4Z") + f("M12 11 14.9 18.6H9.1Z", "#6d8b00") },
  police: {
    bg: "#283593",
    art:
      f("M12 4 18.5 6.5V11.5C18.5 15.5 15.6 18.6 12 20 8.4 18.6 5.5 15.5 5.5 11.5V6.5Z") +
      f("M12 8.2 13.1 10.6 15.6 10.8 13.7 12.5 14.3 15 12 13.7 9.7 15 10.3 12.5 8.4 10.8 10.9 10.6Z", "#283593"),
  },
  redcross: { bg: W, fg: ALERT, art: f("M10 5H14V10H19V14H14V19H10V14H5V10H10Z", ALERT) },
  hospital: { bg: ALERT, art: f("M10 5H14V10H19V14H14V19H10V14H5V10H10Z") },
  repeater: { bg: NET, art: tower },
  dish: { bg: NET, art: f("M5.5 8.5A8.5 8.5 0 0 0 15.5 18.5Z") + s("M10 13.5 15.5 8M15.5 8V6.6M17.5 18.5H8.5M12 16.5V18.5", 1.5) + c(16.2, 7.3, 1.5) },
  laptop: { bg: "#455a64", art: f("M6 6H18V14.5H6Z") + f("M7.3 7.3H16.7V13.2H7.3Z", "#455a64") + f("M3.8 15.6H20.2L19 18H5Z") },
  mail: { bg: "#4e342e", art: f("M4.5 7H19.5V17H4.5Z") + s("M4.8 7.4 12 12.6 19.2 7.4", 1.5, "#4e342e") },
  yagi: { bg: NET, art: s("M4.5 10H19.5M7 6V14M10 6.8V13.2M13 7.4V12.6M16 8V12M12 10V19.5", 1.6) },
  train: {
    bg: "#4e342e",
    art:
      f("M4 16V9H13V6H17V9H20V16Z") +
      f("M5.5 10.3H8.5V12.5H5.5ZM14.2 7.3H15.8V9H14.2Z", "#4e342e") +
      wheel(7, 16.5, "#4e342e") +
      wheel(12, 16.5, "#4e342e") +
      wheel(17, 16.5, "#4e342e"),
  },
  emergency: { bg: ALERT, art: f("M12 4 20.5 19H3.5Z") + f("M11 8.6H13L12.6 14.2H11.4ZM11 15.4H13V17.3H11Z", ALERT) },
  fire: {
    bg: "#e65100",
    art: f("M12 3.8C14 7.8 17.2 9.4 17.2 14A5.2 5.2 0 0 1 6.8 14C6.8 11 8.8 9.8 9.4 7.4 10.4 8.9 11 9.9 11.5 10.5 12 8.5 12.1 6.4 12 3.8Z"),
  },
  water: { bg: "#0277bd", art: f("M12 4C14.6 8 17 10.5 17 14A5 5 0 0 1 7 14C7 10.5 9.4 8 12 4Z") },
  weather: { bg: WX, art: c(15.4, 8.3, 3.2, "#ffd54f") + cloud },
  cloudy: { bg: "#607d8b", art: cloud },
  sunny: {
    bg: "#f9a825",
    art: c(12, 12, 4) + s("M12 3.8V6M12 18V20.2M3.8 12H6M18 12H20.2M6.2 6.2 7.8 7.8M16.2 16.2 17.8 17.8M6.2 17.8 7.8 16.2M16.2 7.8 17.8 6.2", 1.6),
  },
  rain: {
    bg: WX,
    art: f("M7.2 14A3.5 3.5 0 0 1 7.4 7 4.6 4.6 0 0 1 16 6.3 3.8 3.8 0 0 1 16.8 14Z") + s("M8.5 16.3 7.6 18.6M12 16.3 11.1 18.6M15.5 16.3 14.6 18.6", 1.4),
  },
  thunder: {
    bg: "#4527a0",
    art:
      f("M7.2 13A3.5 3.5 0 0 1 7.4 6 4.6 4.6 0 0 1 16 5.3 3.8 3.8 0 0 1 16.8 13Z") + f("M12.6 12.2 9.6 16.4H12L10.8 20.2 14.8 15H12.3L13.8 12.2Z", "#ffd54f"),
  },
  snow: { bg: "#4fc3f7", art: s("M12 4.5V19.5M5.5 8.2 18.5 15.8M5.5 15.8 18.5 8.2M10.3 5.6 12 7.2 13.7 5.6M10.3 18.4 12 16.8 13.7 18.4", 1.6) },
  tornado: { bg: "#455a64", art: s("M4.8 6H19.2M6.5 9.2H17.2M8.4 12.4H15.2M10 15.6H13.4M11.4 18.6H12.4", 1.8) },
  dot: { bg: ALERT, art: c(12, 12, 3.2) },
  cross: { bg: PLAIN, art: s("M7.5 7.5 16.5 16.5M16.5 7.5 7.5 16.5", 2.4) },
  triangle: { bg: "#00897b", art: f("M12 5 19.5 18H4.5Z") },
  circle: { bg: PLAIN, art: `<circle cx="12" cy="12" r="5.5" fill="none" stroke="${W}" stroke-width="2"/>` },
  box: { bg: PLAIN, art: f("M7 7H17V17H7Z") },
  satellite: { bg: "#37474f", art: f("M10 10H14V14H10Z") + f("M3.5 9.2H8.8V14.8H3.5ZM15.2 9.2H20.5V14.8H15.2Z") + s("M12 10V6.4M10.4 5.4Q12 4 13.6 5.4", 1.3) },
  ares: { bg: ALERT, art: diamond },
  gas: {
    bg: "#ef6c00",
    art: f("M6 5H13.5V19H6Z") + f("M7.5 6.6H12V10H7.5Z", "#ef6c00") + s("M13.5 8.5H15.8L17.2 11V16.2Q17.2 17.5 16 17.5T14.8 16.2V13.5H13.5", 1.4),
  },
  restaurant: { bg: "#8d6e63", art: s("M8 4.8V19.2M6 4.8V9.4Q6 11 8 11T10 9.4V4.8M15.6 19.2V4.8Q18 6.6 18 11H15.6", 1.6) },
  park: { bg: FIXED, art: f("M12 3.8 17.6 12.2H14.8L18.6 17H5.4L9.2 12.2H6.4Z") + f("M11 17H13V20.2H11Z") },
  lighthouse: { bg: SEA, art: f("M10 8H14L15.5 19.5H8.5Z") + f("M9.6 5.5 12 3.8 14.4 5.5V8H9.6Z", "#ffd54f") + f("M9.4 11.5H14.6L14.9 13.8H9.1Z", SEA) },
  cone: { bg: "#ef6c00", art: f("M10.6 5H13.4L17 17.5H7Z") + f("M9.6 10H14.4L15.1 12.4H8.9Z", "#ef6c00") + f("M5 17.5H19V19.5H5Z") },
  eye: { bg: "#5e35b1", art: f("M3.8 12Q12 3.5 20.2 12 12 20.5 3.8 12Z") + c(12, 12, 3, "#5e35b1") + c(12, 12, 1.3) },
  shelter: { bg: "#6d4c41", art: house("#6d4c41") },
};

/**
 * The drawing each code of the APRS 1.01 symbol tables uses; codes not
 * listed show their characters. The names are words of the interface, in
 * the reader's language: ui/i18n `aprsSymbol`, keyed by table and the
 * code's character code (`primary_62` is `/>`, the car; `alternate_95` is
 * `\_`, the weather site), so a German reader hears "Wetterstation".
 */
const PRIMARY: Record<string, string> = {
  "!": "police",
  "#": "digi",
  $: "phone",
  "&": "gateway",
  "'": "aircraft",
  "(": "satellite",
  "+": "redcross",
  ",": "tent",
  "-": "house",
  ".": "cross",
  "/": "dot",
  ":": "fire",
  ";": "tent",
  "<": "motorcycle",
  "=": "train",
  ">": "car",
  "?": "laptop",
  A: "redcross",
  B: "mail",
  C: "ship",
  E: "eye",
  F: "truck",
  H: "building",
  I: "laptop",
  K: "building",
  L: "laptop",
  M: "laptop",
  N: "mail",
  O: "balloon",
  P: "police",
  R: "rv",
  S: "aircraft",
  U: "bus",
  W: "weather",
  X: "helicopter",
  Y: "yacht",
  Z: "laptop",
  "[": "jogger",
  "\\": "triangle",
  "]": "mail",
  "^": "aircraft",
  _: "weather",
  "`": "dish",
  a: "ambulance",
  b: "bike",
  c: "building",
  d: "firetruck",
  f: "firetruck",
  g: "glider",
  h: "hospital",
  j: "jeep",
  k: "truck",
  l: "laptop",
  m: "repeater",
  n: "repeater",
  o: "building",
  r: "repeater",
  s: "ship",
  t: "gas",
  u: "truck",
  v: "van",
  w: "water",
  x: "laptop",
  y: "yagi",
};
const ALTERNATE: Record<string, string> = {
  "!": "emergency",
  "#": "digiAlt",
  "&": "igate",
  "'": "cross",
  "(": "cloudy",
  "*": "snow",
  ",": "tent",
  "-": "houseHf",
  "/": "dot",
  "0": "circle",
  "8": "repeater",
  "9": "gas",
  ";": "park",
  ">": "car",
  A: "box",
  B: "snow",
  C: "ship",
  D: "rain",
  F: "rain",
  G: "snow",
  I: "rain",
  J: "thunder",
  L: "lighthouse",
  O: "balloon",
  R: "restaurant",
  S: "satellite",
  T: "thunder",
  U: "sunny",
  W: "weather",
  "[": "cloudy",
  "^": "aircraft",
  _: "weather",
  "`": "rain",
  a: "ares",
  c: "triangle",
  e: "rain",
  f: "tornado",
  h: "building",
  i: "box",
  j: "cone",
  k: "jeep",
  n: "triangle",
  o: "circle",
  p: "weather",
  s: "ship",
  t: "tornado",
  u: "truck",
  v: "van",
  w: "water",
  x: "cross",
  y: "weather",
  z: "shelter",
  "{": "cloudy",
};

/**
 * A 3 × 5 pixel font for printable ASCII: five rows per character, each an
 * octal digit whose bits (4, 2, 1) are the left, middle and right pixels.
 */
const FONT =
  "22202 55000 57575 36736 51245 25253 22000 12221 42224 05250 02720 00024 00700 00002 11244 " + // ! " # $ % & ' ( ) * + , - . /
  "75557 26227 71747 71317 55711 74717 74757 71122 75757 75717 " + // 0-9
  "02020 02024 12421 07070 42124 71202 75743 " + // : ; < = > ? @
  "25755 65656 34443 65556 74647 74644 34553 55755 72227 11152 55655 44447 57755 75555 25552 65644 25563 65655 34216 72222 55557 55552 55775 55255 55222 71247 " +
  "64446 44211 31113 25000 00007 42000 " + // [ \ ] ^ _ `
  "03553 46556 03443 13553 02743 12722 35316 44655 20222 10152 45665 62227 06755 06555 02552 06564 03531 05644 03616 27221 05553 05552 05575 05225 55316 07147 " +
  "32623 22222 62326 03600"; // { | } ~
const ROWS = FONT.split(" ");

/** A character of the pixel font as one SVG path at (x, y), `p` units per pixel. */
export function pixelText(text: string, x: number, y: number, p: number, fill: string): string {
  let d = "";
  [...text].forEach((ch, k) => {
    const rows = ROWS[ch.charCodeAt(0) - 33];
    if (!rows) return;
    const x0 = x + k * 4 * p;
    for (let r = 0; r < 5; r++) {
      const bits = Number(rows[r]);
      for (let b = 0; b < 3; b++) {
        if (!(bits & (4 >> b))) continue;
        let run = 1;
        while (b + run < 3 && bits & (4 >> (b + run))) run++;
        d += `M${+(x0 + b * p).toFixed(2)} ${+(y + r * p).toFixed(2)}h${+(run * p).toFixed(2)}v${p}h${-+(run * p).toFixed(2)}z`;
        b += run - 1;
      }
    }
  });
  return d ? `<path d="${d}" fill="${fill}"/>` : "";
}

export interface SymbolInfo {
  table: "/" | "\\";
  code: string;
  overlay?: string;
  name: string;
  drawn: boolean;
}

/** What a two-character APRS symbol means. Anything malformed is the house, the APRS default. */
export function symbolInfo(sym: string | undefined): SymbolInfo {
  const raw = sym && sym.length === 2 ? sym : "/-";
  let tc = raw[0]!;
  const code = raw[1]!;
  let overlay: string | undefined;
  // Compressed positions write overlays 0-9 as a-j.
  if (tc >= "a" && tc <= "j") tc = String.fromCharCode(tc.charCodeAt(0) - 49);
  if (/^[0-9A-Z]$/.test(tc)) overlay = tc;
  const table = tc === "/" ? "/" : "\\";
  const numbered = table === "/" && /[0-9]/.test(code);
  const drawn = !!(table === "/" ? PRIMARY : ALTERNATE)[code] || numbered;
  const named = t(`aprsSymbol.${symbolId(table, code)}`, { defaultValue: "" });
  const name = named || (numbered ? t("aprsSymbol.numbered", { n: code }) : t("aprsSymbol.unknown", { code: `${table}${code}` }));
  return { table, code, ...(overlay ? { overlay } : {}), name: overlay ? t("aprsSymbol.withOverlay", { name, overlay }) : name, drawn };
}

/** A symbol's key among the names (ui/i18n `aprsSymbol`): its table and its code's character code, "primary_62" for `/>`. */
export const symbolId = (table: "/" | "\\", code: string) => `${table === "/" ? "primary" : "alternate"}_${code.charCodeAt(0)}`;

const esc = (v: string) => v.replace(/[<>&"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The SVG markup for a symbol, `size` px square: a badge in its family's
 * colour with the drawing, or with the table and code characters when the
 * code has no drawing; an overlay character in the lower right corner.
 */
export function symbolSvg(sym: string | undefined, size = 24): string {
  const info = symbolInfo(sym);
  const key = (info.table === "/" ? PRIMARY : ALTERNATE)[info.code];
  const glyph = key ? ART[key] : undefined;
  const bg = glyph?.bg ?? (info.table === "/" ? PLAIN : "#78909c");
  const ring = glyph?.fg ?? "#fff";
  const badge =
    info.table === "/"
      ? `<circle cx="12" cy="12" r="11" fill="${bg}" stroke="${bg === W ? ring : "#fff"}" stroke-width="1.5"/>`
      : `<rect x="1" y="1" width="22" height="22" rx="5" fill="${bg}" stroke="#fff" stroke-width="1.5"/>`;
  let art: string;
  if (glyph) art = glyph.art;
  else if (info.table === "/" && /[0-9]/.test(info.code)) art = pixelText(info.code, 9, 7, 2, W);
  else art = pixelText((info.overlay ?? info.table) + info.code, 5.4, 7, 2, W);
  // An overlay shown by the fallback already carries its character.
  const overlay =
    info.overlay && glyph
      ? `<rect x="12.5" y="12.5" width="10" height="10" rx="2" fill="#fff" stroke="${bg}" stroke-width="1"/>` +
        pixelText(info.overlay, 15.5, 14.25, 1.4, "#111")
      : "";
  return `<svg class="aprs-glyph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="${size}" height="${size}" role="img" aria-label="${esc(info.name)}">${badge}${art}${overlay}</svg>`;
}
