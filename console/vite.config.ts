// The web console's build: plain TypeScript modules and one stylesheet, bundled into dist/ and served by the
// api processes at /console/ (src/http/routes/console.ts). `npm install` builds it (the root's prepare script).

import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: true },
});
