/**
 * For bundles another runtime runs (Node, workerd): each source file's
 * `import.meta.dir` (Bun's) is written in as the folder it has in the
 * checkout, so the data directory and what the code finds beside its source
 * are where `npm start` finds them.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { BunPlugin } from "bun";

export const ROOT = resolve(import.meta.dir, "..");

export const sourceDirs: BunPlugin = {
  name: "import.meta.dir",
  setup(build) {
    build.onLoad({ filter: new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/(src|radio)/.*\\.tsx?$`) }, ({ path }) => {
      const text = readFileSync(path, "utf8");
      return { contents: text.replaceAll("import.meta.dir", JSON.stringify(dirname(path))), loader: path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};
