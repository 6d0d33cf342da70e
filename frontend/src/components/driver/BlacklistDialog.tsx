import { useState } from 'react';
import { Form, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { invalidateResource } from '../../data/hooks';
import type { RowDialogProps } from '../../resources/types';
import { blacklist } from './api';

/** Puts a driver on the blacklist with a reason, or takes them off (their cards are refused on every vehicle). */
export default function BlacklistDialog({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const on = Number(row.blacklisted) === 1;
  const name = String(row.name ?? '');

  const submit = async () => {
    if (!on && !reason.trim()) return;
    setBusy(true);
    try {
      await blacklist([String(row.id)], on ? 0 : 1, on ? undefined : reason.trim());
      toast.success(t(on ? 'driver.unblacklistDone' : 'driver.blacklistDone'));
      void invalidateResource(client, 'driver');
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={on ? t('driver.unblacklist') : t('driver.blacklistTitle', { name })}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      okButtonProps={{ danger: !on, disabled: !on && !reason.trim(), loading: busy }}
      onOk={() => void submit()}
      onCancel={onClose}
    >
      {on ? (
        <Typography.Paragraph>{t('driver.unblacklistConfirm', { name })}</Typography.Paragraph>
      ) : (
        <Form layout="vertical">
          <Form.Item label={t('driver.blacklistReason')} required>
            <Input.TextArea id="blacklistReason" rows={3} maxLength={255} showCount value={reason} onChange={(e) => setReason(e.target.value)} />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}
