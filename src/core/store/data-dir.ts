/**
 * The data directory is its operator's alone: the CLI sets the umask to 077
 * (every file 0600, every folder 0700), and a serving gateway tightens what an
 * older version or another tool left wider: the directory itself, and the
 * database, its WAL, backups, keys and settings directly in it.
 */
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function tightenDataDir(dataDir: string): void {
  try {
    chmodSync(dataDir, 0o700);
    for (const name of readdirSync(dataDir)) {
      const path = join(dataDir, name);
      const st = statSync(path);
      if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(path, 0o600);
      else if (st.isDirectory() && (st.mode & 0o077) !== 0) chmodSync(path, 0o700);
    }
  } catch {
    // a file system without Unix modes (FAT on a USB disk, Windows): nothing to tighten
  }
}
