// Builds the UI into ../inspector/api/static, which the Python API serves (git-ignored).
// Swagger UI's files are copied next to it so the API docs (/docs, public/docs.js) work offline.
import { cpSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
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

export default defineConfig({
  plugins: [react(), swaggerAssets()],
  build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
