export type ToastKind = 'success' | 'error' | 'warning' | 'info';

/** Where toasts end up: antd's message API once the app is mounted. */
export interface ToastSink {
  open(kind: ToastKind, text: string, onClose: () => void): void;
}

export interface Toaster {
  /** Shows the toast unless the same text is already showing; returns whether it was shown. */
  show(kind: ToastKind, text: string): boolean;
  setSink(sink: ToastSink | null): void;
  /** Texts currently on screen. */
  active(): string[];
}

export function createToaster(initial: ToastSink | null = null): Toaster {
  let sink = initial;
  const showing = new Set<string>();
  return {
    show(kind, text) {
      if (showing.has(text)) return false;
      showing.add(text);
      const done = () => showing.delete(text);
      if (sink) sink.open(kind, text, done);
      else {
        // Not mounted yet (e.g. during start-up): nothing to display, do not block later toasts.
        console.warn(`[${kind}] ${text}`);
        done();
      }
      return true;
    },
    setSink(next) {
      sink = next;
    },
    active: () => [...showing],
  };
}

/** The application's single toaster. */
export const toaster = createToaster();

export const toast = {
  success: (text: string) => toaster.show('success', text),
  error: (text: string) => toaster.show('error', text),
  warning: (text: string) => toaster.show('warning', text),
  info: (text: string) => toaster.show('info', text),
};
