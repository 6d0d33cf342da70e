import { useEffect } from 'react';
import { App } from 'antd';
import { toaster } from '../api/toast';

/** Routes the request wrapper's toasts to antd's themed message API. */
export function AntdBridge() {
  const { message } = App.useApp();
  useEffect(() => {
    toaster.setSink({
      open(kind, text, onClose) {
        void message.open({ type: kind, content: text, duration: kind === 'error' ? 4 : 2.5, onClose });
      },
    });
    return () => toaster.setSink(null);
  }, [message]);
  return null;
}
