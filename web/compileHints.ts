// V8's explicit compile hint (Chrome 136+): a script whose first line is `//# allFunctionsCalledOnLoad`
// has all its functions compiled on the thread that streams it in, while the page still waits for it,
// instead of lazily on the main thread the first time each one is called. A timeline's first rows run
// most of the entry chunk (React, the router, the session page) on a fresh tab: compiled lazily, that
// was tens of ms of the main thread's work before row 1 (bench/scale_ui.py; DESIGN-NOTES "Compiled
// while streamed"). Repeat visits gain too: the code cache V8 keeps then holds every function.
//
// Only the chunks the page loads at start get it (the entry and what it imports statically): the
// views loaded on first use would compile code that may never run. Other browsers read a comment.
import type { Plugin } from "vite";

export const HINT = "//# allFunctionsCalledOnLoad";

export function compileHints(): Plugin {
  return {
    name: "v8-compile-hints",
    apply: "build",
    // After every other plugin's: Vite's own puts a line at the top of the entry, and the hint must
    // be the file's first line.
    generateBundle: {
      order: "post",
      handler(_options, bundle) {
        const eager = new Set<string>();
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== "chunk" || !chunk.isEntry) continue;
          eager.add(chunk.fileName);
          for (const name of chunk.imports) eager.add(name);
        }
        for (const name of eager) {
          const chunk = bundle[name];
          if (chunk?.type !== "chunk" || chunk.code.startsWith(HINT)) continue;
          chunk.code = `${HINT}\n${chunk.code}`;
          // One line more at the top: the source map's lines move down by one.
          if (chunk.map) chunk.map.mappings = `;${chunk.map.mappings}`;
          const map = bundle[`${name}.map`];
          if (map?.type === "asset" && typeof map.source === "string") {
            const parsed = JSON.parse(map.source) as { mappings: string };
            parsed.mappings = `;${parsed.mappings}`;
            map.source = JSON.stringify(parsed);
          }
        }
      },
    },
  };
}
