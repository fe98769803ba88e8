/**
 * Takes a file's pages out of the page cache (GNU dd: "drop cache for whole
 * file"), as after a boot. A build leaves the whole 127 MB executable cached,
 * and on each page fault the kernel also maps the cached pages around it
 * (fault-around, 64 KB): resident pages the process never reads, 4-6 MB of
 * an idle gateway's RSS. With the file read only as it runs (after a boot, or
 * an executable installed a while ago) RSS is what the process touches.
 * For the benches that measure what the executable holds resident (startup, soak).
 */
export function evictFromPageCache(file: string): void {
  const r = Bun.spawnSync(["dd", `if=${file}`, "iflag=nocache", "count=0", "status=none"], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`dd could not drop ${file} from the page cache: ${r.stderr}`);
}
