/**
 * Preloaded into a gateway the suite starts from source (`bun --preload`):
 * on SIGUSR2 it writes the files of every module the process has loaded so
 * far, one line `LOADED <JSON array>` on stderr (test/system/startup-loads.test.ts).
 */
process.on("SIGUSR2", () => {
  process.stderr.write(`LOADED ${JSON.stringify(Object.keys(require.cache))}\n`);
});
