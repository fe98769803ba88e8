/** The APRS packets of test/aprs/corpus.txt, the benches' traffic: one a line, comments left out. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const CORPUS = join(import.meta.dir, "../../test/aprs/corpus.txt");

/** The corpus's lines; with `bytes`, its `<0xNN>` escapes become the bytes they name. */
export function corpusLines(opts: { bytes?: boolean } = {}): string[] {
  const lines = readFileSync(CORPUS, "latin1")
    .split("\n")
    .filter((l) => l && !l.startsWith("#"));
  return opts.bytes ? lines.map((l) => l.replace(/<0x([0-9a-fA-F]{2})>/g, (_, h) => String.fromCharCode(parseInt(h, 16)))) : lines;
}
