// The benchmark's React floor (see main.tsx): `npx vite build --config floor/vite.config.ts --outDir DIR`
// from web/, run by bench/scale_ui.py. Not part of the UI's build.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  plugins: [react()],
  build: { emptyOutDir: true },
});
