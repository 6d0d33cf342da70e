import { useState } from 'react';
import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import type { RowDialogProps } from '../../resources/types';
import { revertPassword } from './api';

/** Resets a driver's app password to a random one, shown here once (the server keeps only its hash). */
export default function ResetPassword({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const [password, setPassword] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const name = String(row.name ?? '');

  const reset = async () => {
    setBusy(true);
    try {
      setPassword((await revertPassword(String(row.id))).password);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={t('driver.resetPassword')}
      okText={password ? t('common.close') : t('common.confirm')}
      cancelText={t('common.cancel')}
      cancelButtonProps={{ style: password ? { display: 'none' } : undefined }}
      okButtonProps={{ loading: busy }}
      onOk={() => (password ? onClose() : void reset())}
      onCancel={onClose}
    >
      {password ? (
        <Typography.Paragraph data-testid="new-password">
          {t('driver.resetDone')}. <Typography.Text copyable={{ text: password }}>{t('driver.newPassword', { password })}</Typography.Text>
        </Typography.Paragraph>
      ) : (
        <Typography.Paragraph>{t('driver.resetConfirm', { name })}</Typography.Paragraph>
      )}
    </Modal>
  );
}
