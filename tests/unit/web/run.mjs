// Bundles web_units.test.ts (or --entry NAME, a file beside this one) with
// esbuild (console/web's lock file) and runs it with node's test runner.
// Usage: node run.mjs --modules DIR --out FILE [--entry NAME]
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return resolve(process.argv[i + 1]);
};
const modules = arg("--modules");
const out = arg("--out");
const esbuild = createRequire(join(modules, "noop.js"))("esbuild");
await esbuild.build({
  entryPoints: [join(here, process.argv.includes("--entry") ? process.argv[process.argv.indexOf("--entry") + 1] : "web_units.test.ts")],
  bundle: true, platform: "node", format: "esm", target: "node18", outfile: out, logLevel: "warning",
  nodePaths: [modules],
});
const r = spawnSync(process.execPath, ["--test", out], { stdio: "inherit" });
process.exit(r.status ?? 1);
