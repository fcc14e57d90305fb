// Builds the UI into ../inspector/api/static, which the Python API serves (git-ignored).
// Swagger UI's files are copied next to it so the API docs (/docs, public/docs.js) work offline.
import { cpSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { rolldown } from "rolldown";
import { defineConfig, type Plugin } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(here, "../inspector/api/static");

function swaggerAssets(): Plugin {
  return {
    name: "copy-swagger-ui",
    apply: "build",
    closeBundle() {
      const from = resolve(here, "node_modules/swagger-ui-dist");
      mkdirSync(resolve(outDir, "swagger"), { recursive: true });
      for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
        cpSync(resolve(from, file), resolve(outDir, "swagger", file));
      }
    },
  };
}

// index.html's `<script src="/prime.js">` is src/first/prime.ts bundled on its own as a classic
// script (it must run in the head, before the page is parsed: no module), with a hashed name
// (assets/prime-HASH.js, kept by the browser without asking again: as /prime.js from public/ it was
// revalidated on every load, a round trip before the timeline's first request could even go out).
// In `vite` (dev), a module script in its place.
const HEAD_TAG = '<script src="/prime.js"></script>';
const MARK = "<!--head-script-->";

function headScript(): Plugin {
  let build = false;
  return {
    name: "head-script",
    configResolved(config) {
      build = config.command === "build";
    },
    async buildStart() {
      if (!build) return;
      const bundle = await rolldown({ input: resolve(here, "src/first/prime.ts"), platform: "browser" });
      try {
        const { output } = await bundle.generate({ format: "iife", minify: true });
        this.emitFile({ type: "asset", name: "prime.js", source: output[0].code });
      } finally {
        await bundle.close();
      }
    },
    transformIndexHtml: {
      order: "pre",
      handler(html) {
        if (!html.includes(HEAD_TAG)) throw new Error(`index.html lacks ${HEAD_TAG}`);
        return html.replace(HEAD_TAG, build ? MARK : '<script type="module" src="/src/first/prime.ts"></script>');
      },
    },
  };
}

function headScriptName(): Plugin {
  return {
    name: "head-script-name",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        const asset = Object.values(ctx.bundle ?? {}).find(
          (o) => o.type === "asset" && (o.names ?? []).includes("prime.js"),
        );
        if (!asset) throw new Error("the head script (src/first/prime.ts) was not built");
        return html.replace(MARK, `<script src="/${asset.fileName}"></script>`);
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), swaggerAssets(), headScript(), headScriptName()],
  build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
