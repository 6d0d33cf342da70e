/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dev server proxies /api to a locally running `liftdesk serve` (LIFTDESK_PORT, default 8000).
const backend = `http://127.0.0.1:${process.env.LIFTDESK_PORT ?? '8000'}`;

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { '/api': { target: backend, changeOrigin: false } },
  },
  build: {
    // No <link rel="modulepreload"> per dependency when a page's chunk is first imported: inserting them (60 for the
    // shell) took a third of the app's first long task. The browser fetches a chunk's imports as it reads it (one
    // more round trip per level of imports on the first visit; hashed chunks are cached for good after it).
    modulePreload: false,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
  },
});
