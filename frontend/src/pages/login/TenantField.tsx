import { Form, Input } from 'antd';
import { TeamOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { website } from '../../config/website';

/** The sign-in forms' tenant field (form name `tenantId`, required), shown when the site runs in tenant mode. */
export function TenantField() {
  const { t } = useTranslation();
  if (!website.tenantMode) return null;
  return (
    <Form.Item name="tenantId" rules={[{ required: true, message: t('login.tenantIdRequired') }]}>
      <Input prefix={<TeamOutlined />} placeholder={t('login.tenantId')} aria-label={t('login.tenantId')} />
    </Form.Item>
  );
}
