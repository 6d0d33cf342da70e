import { describe, expect, it } from 'vitest';
import { createToaster, type ToastKind } from './toast';

function fakeSink() {
  const shown: { kind: ToastKind; text: string; close: () => void }[] = [];
  return { shown, sink: { open: (kind: ToastKind, text: string, close: () => void) => shown.push({ kind, text, close }) } };
}

describe('toast de-duplication', () => {
  it('does not show a text that is already showing', () => {
    const { shown, sink } = fakeSink();
    const toaster = createToaster(sink);
    expect(toaster.show('error', '令牌已失效')).toBe(true);
    expect(toaster.show('error', '令牌已失效')).toBe(false);
    expect(toaster.show('warning', '令牌已失效')).toBe(false);
    expect(shown).toHaveLength(1);
  });

  it('shows different texts side by side', () => {
    const { shown, sink } = fakeSink();
    const toaster = createToaster(sink);
    toaster.show('error', 'a');
    toaster.show('error', 'b');
    expect(shown.map((s) => s.text)).toEqual(['a', 'b']);
    expect(toaster.active().sort()).toEqual(['a', 'b']);
  });

  it('shows the text again once the first toast has closed', () => {
    const { shown, sink } = fakeSink();
    const toaster = createToaster(sink);
    toaster.show('error', 'x');
    shown[0].close();
    expect(toaster.active()).toEqual([]);
    expect(toaster.show('error', 'x')).toBe(true);
    expect(shown).toHaveLength(2);
  });

  it('does not block later toasts while nothing can display them', () => {
    const toaster = createToaster(null);
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      expect(toaster.show('error', 'early')).toBe(true);
      expect(toaster.show('error', 'early')).toBe(true);
    } finally {
      console.warn = warn;
    }
  });
});
