import { defineConfig } from "vitest/config";
import { contract } from "./contract.config";

// Node's `process`, typed here rather than with @types/node (one more dependency).
declare const process: { env: Record<string, string | undefined> };

// The build is committed inside the Python package and served at /play by the
// service; hashed file names let the service cache them for a year.
export default defineConfig({
  base: "/play/",
  define: { __CONTRACT__: JSON.stringify(contract) },
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: process.env.WEB_OUT_DIR ?? "../service/webui/static",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    modulePreload: { polyfill: false },
  },
  server: { proxy: { "^/(games|presets|openapi.json)": "http://127.0.0.1:8000" } },
  test: { environment: "node" },
});
