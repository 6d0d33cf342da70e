import type { App } from 'antd';
import i18n from '../i18n';
import { clearCache } from '../api/auth';
import { toast } from '../api/toast';
import { queryClient } from '../data/queryClient';

export type ModalApi = ReturnType<typeof App.useApp>['modal'];

/** Confirms, asks the server to drop its caches, then forgets locally cached lists and dictionaries. */
export function confirmClearCache(modal: ModalApi): void {
  modal.confirm({
    title: i18n.t('tabs.clearCacheConfirm'),
    okText: i18n.t('common.confirm'),
    cancelText: i18n.t('common.cancel'),
    onOk: async () => {
      await clearCache();
      await queryClient.invalidateQueries();
      toast.success(i18n.t('tabs.cacheCleared'));
    },
  });
}
