import { useState } from 'react';
import { Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiGetAt } from '../../api/client';
import { toast } from '../../api/toast';
import type { RowDialogProps } from '../../resources/types';

/** Ignore one open reminder (it is not written again for its threshold), after a confirmation. */
export default function IgnoreReminder({ row, onClose, reload }: RowDialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const ignore = async () => {
    setBusy(true);
    try {
      await apiGetAt('/api/blade-fics/fics/driverExpirationReminder/ignore/{id}', { id: String(row.id) });
      toast.success(t('reminder.ignored'));
      onClose();
      reload();
    } catch {
      // shown by the request wrapper
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('reminder.ignore')}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      onOk={() => void ignore()}
      onCancel={onClose}
    >
      {t('reminder.ignoreConfirm', { name: String(row.driverName ?? ''), paper: String(row.paperNumber ?? row.licenseNumber ?? '') })}
    </Modal>
  );
}
