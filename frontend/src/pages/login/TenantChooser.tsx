import { Modal, Radio, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TenantOption } from '../../api/types';

export interface TenantChooserProps {
  open: boolean;
  tenants: TenantOption[];
  chosen: string;
  switching: boolean;
  onChoose: (tenantId: string) => void;
  onOk: () => void;
  onCancel: () => void;
}

/** Which of an account's tenants to enter (only accounts of several tenants see it: loaded when needed). */
export default function TenantChooser({ open, tenants, chosen, switching, onChoose, onOk, onCancel }: TenantChooserProps) {
  const { t } = useTranslation();
  return (
    <Modal
      open={open}
      title={t('login.chooseTenant')}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={switching}
      onOk={onOk}
      onCancel={onCancel}
      mask={{ closable: false }}
    >
      <Typography.Paragraph type="secondary">{t('login.chooseTenantHint')}</Typography.Paragraph>
      <Radio.Group
        value={chosen}
        onChange={(e) => onChoose(String(e.target.value))}
        orientation="vertical"
        options={tenants.map((x) => ({ value: x.tenantId, label: `${x.tenantName} (${x.tenantId})` }))}
      />
    </Modal>
  );
}
