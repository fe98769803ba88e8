/**
 * The geocache_visits.txt field-notes file as GPS units and c:geo/GSAK write
 * it: UTF-16LE with a byte-order mark, CRLF, `CODE,2024-05-01T10:20Z,Found
 * it,"text"` with doubled quotes, text over several lines; and what the web
 * app exports reads back the same.
 */
import { describe, expect, test } from "bun:test";
import { exportVisits, parseVisits } from "../../ui/offline/notes.ts";
import type { FieldNote } from "../../ui/offline/db.ts";

const utf16 = (s: string) => {
  const b = new Uint8Array(2 + s.length * 2);
  b.set([0xff, 0xfe]);
  for (let i = 0; i < s.length; i++) {
    b[2 + i * 2] = s.charCodeAt(i) & 0xff;
    b[3 + i * 2] = s.charCodeAt(i) >> 8;
  }
  return b;
};

describe("geocache_visits.txt", () => {
  test("reads a Garmin file: types, times in UTC, quotes, multi-line text; skips unknown types and junk", () => {
    const file =
      'GC3E6GR,2012-11-30T18:23Z,Found it,""\r\n' +
      'GC62VNM,2019-12-29T12:05Z,Didn\'t find it,"\r\n\r\nMMM\r\nA"\r\n' +
      ',2020-08-16T09:52Z,Found it,""\r\n' +
      'GC4NKAY,2026-09-27T09:38Z,Unattempted,""\r\n' +
      'GC123AB,2024-05-01T10:20:30Z,Write note,"Il a dit ""bonjour"", merci"\r\n' +
      'GC2BBBB,2024-05-02T08:00Z,Needs Maintenance,"log is wet"\r\n' +
      "not a visit at all\r\n";
    const { visits, skipped } = parseVisits(utf16(file));
    expect(visits).toEqual([
      { code: "GC3E6GR", foundAt: Date.UTC(2012, 10, 30, 18, 23), kind: "find", type: "Found it", text: "" },
      { code: "GC62VNM", foundAt: Date.UTC(2019, 11, 29, 12, 5), kind: "dnf", type: "Didn't find it", text: "\n\nMMM\nA" },
      { code: "GC123AB", foundAt: Date.UTC(2024, 4, 1, 10, 20, 30), kind: "note", type: "Write note", text: 'Il a dit "bonjour", merci' },
      { code: "GC2BBBB", foundAt: Date.UTC(2024, 4, 2, 8, 0), kind: "note", type: "Needs Maintenance", text: "log is wet" },
    ]);
    // the line with no code, the unattempted visit and the junk line
    expect(skipped).toBe(3);
  });

  test("also reads UTF-8 (with or without a mark) and UTF-16LE without a mark", () => {
    const line = 'SV0001,2024-05-01T10:20Z,Found it,"Grüße, 73"\r\n';
    const want = [{ code: "SV0001", foundAt: Date.UTC(2024, 4, 1, 10, 20), kind: "find" as const, type: "Found it", text: "Grüße, 73" }];
    expect(parseVisits(new TextEncoder().encode(line)).visits).toEqual(want);
    expect(parseVisits(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(line)])).visits).toEqual(want);
    expect(parseVisits(utf16(line).subarray(2)).visits).toEqual(want);
  });

  test("the export is UTF-16LE with a mark, one CRLF line per note in time order, and reads back the same", () => {
    const note = (over: Partial<FieldNote>): FieldNote => ({
      clientId: "x",
      cacheKey: "1",
      code: "SV0001",
      name: "",
      kind: "find",
      text: "",
      foundAt: 0,
      state: "pending",
      ...over,
    });
    const notes = [
      note({ code: "SV0002", kind: "dnf", text: 'Muggles, "lots"\nof them', foundAt: Date.UTC(2024, 4, 1, 11, 0) }),
      note({ code: "SV0001", kind: "find", text: "TFTC", foundAt: Date.UTC(2024, 4, 1, 10, 20, 59) }),
    ];
    const bytes = exportVisits(notes);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(new TextDecoder("utf-16le").decode(bytes.subarray(2))).toBe(
      'SV0001,2024-05-01T10:20Z,Found it,"TFTC"\r\nSV0002,2024-05-01T11:00Z,Didn\'t find it,"Muggles, ""lots""\nof them"\r\n',
    );
    const back = parseVisits(bytes).visits;
    expect(back.map((v) => [v.code, v.kind, v.text, v.foundAt])).toEqual([
      ["SV0001", "find", "TFTC", Date.UTC(2024, 4, 1, 10, 20)],
      ["SV0002", "dnf", 'Muggles, "lots"\nof them', Date.UTC(2024, 4, 1, 11, 0)],
    ]);
  });
});
