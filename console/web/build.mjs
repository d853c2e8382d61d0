// Builds the web console: TypeScript (TSX, Preact) and CSS bundled by
// esbuild into <out>/assets/app-<hash>.{js,css}, index.html naming them, and
// a .gz beside every file (the proxy sends it to clients that take gzip).
// Usage: node build.mjs [--out DIR] [--modules DIR]
//   --out: where to write (default ./dist); --modules: the node_modules
//   directory npm ci filled (default ./node_modules; CMake uses the build tree).
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? resolve(process.argv[i + 1]) : dflt;
};
const out = arg("--out", join(here, "dist"));
const modules = arg("--modules", join(here, "node_modules"));
const esbuild = createRequire(join(modules, "noop.js"))("esbuild");

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });
const result = await esbuild.build({
  entryPoints: { app: join(here, "src/main.tsx") },
  bundle: true,
  format: "esm",
  target: ["chrome109", "firefox115", "safari16"],
  minify: true,
  sourcemap: false,
  jsx: "automatic",
  jsxImportSource: "preact",
  nodePaths: [modules],
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
const names = Object.keys(result.metafile.outputs).map((p) => p.split("/").pop());
const js = names.find((n) => n.endsWith(".js"));
const css = names.find((n) => n.endsWith(".css"));
if (!js || !css) throw new Error("esbuild wrote no app js/css: " + names.join(", "));
const html = readFileSync(join(here, "src/index.html"), "utf8")
  .replace("%CSS%", `/console/assets/${css}`)
  .replace("%JS%", `/console/assets/${js}`);
writeFileSync(join(out, "index.html"), html);
const gz = (p) => writeFileSync(p + ".gz", gzipSync(readFileSync(p), { level: constants.Z_BEST_COMPRESSION }));
gz(join(out, "index.html"));
for (const n of readdirSync(join(out, "assets"))) gz(join(out, "assets", n));
let total = 0;
for (const n of readdirSync(join(out, "assets"))) total += readFileSync(join(out, "assets", n)).length;
console.log(`web console: ${js}, ${css} (${total} bytes with .gz) in ${out}`);
