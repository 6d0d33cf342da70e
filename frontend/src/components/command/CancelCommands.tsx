import { App, Button } from 'antd';
import { StopOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import type { ToolbarExtraProps } from '../../resources/types';
import { CANCEL_PERMISSION, cancelCommands, pendingIds } from './command';

/**
 * "Cancel commands" on the command log's toolbar: cancels the selected commands that are still pending, after a
 * confirmation. Shown to users who hold the page's cancel button (`command_log_cancel`), which the server checks.
 */
export function CancelCommandsButton({ selectedRows, reload, clearSelection }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const { can } = useAccess();
  if (!can(CANCEL_PERMISSION)) return null;

  const start = () => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    const ids = pendingIds(selectedRows);
    if (ids.length === 0) {
      toast.warning(t('command.cancel.nonePending'));
      return;
    }
    const skipped = selectedRows.length - ids.length;
    modal.confirm({
      title: t('command.cancel.confirm', { count: ids.length }),
      content: skipped > 0 ? t('command.cancel.skipped', { count: skipped }) : t('command.cancel.hint'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await cancelCommands(ids);
          toast.success(t('command.cancel.done', { count: ids.length }));
        } catch (e) {
          // e.g. one of them was sent meanwhile: the server cancels none and says which
          toast.error(t('command.cancel.failed', { reason: e instanceof ApiError ? e.message : String(e) }));
        } finally {
          clearSelection();
          reload();
        }
      },
    });
  };

  return (
    <Button danger icon={<StopOutlined />} onClick={start}>
      {t('command.cancel.action')}
    </Button>
  );
}
