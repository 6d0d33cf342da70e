import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './i18n';
// antd's components styled by its prebuilt stylesheet (zero-runtime: App.tsx), not generated while rendering
import 'antd/dist/antd.css';
import './styles.css';
import App from './App';
import { installGlobalErrorHandlers } from './store/errorLog';

installGlobalErrorHandlers();

// The first render as a transition: React renders it in slices, painting and taking input between them, instead of
// one task as long as the whole shell's render.
const render = () => {
  const root = createRoot(document.getElementById('root')!);
  startTransition(() =>
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
};
// English texts are fetched first when English is the stored language (Chinese ones are in this bundle).
i18nReady.then(render, render);
