import { useState } from 'react';
import { Button, Space, Typography, Upload } from 'antd';
import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import type { FieldControlProps } from '../../resources/types';
import { logoProblem, uploadLogo } from './logo';
import { useLogoUrl } from './useLogoUrl';

/**
 * The organisation form's logo (`deptLogo`): a jpg, jpeg or png of at most 5 MB, checked here before it is sent and
 * by the server after (the content must be the picture its name says); the form keeps the uploaded file's link.
 */
export function LogoInput({ value, onChange, disabled }: FieldControlProps) {
  const { t } = useTranslation();
  const link = typeof value === 'string' && value ? value : undefined;
  const preview = useLogoUrl(link);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const send = async (file: File) => {
    const local = logoProblem(file);
    if (local) {
      setProblem(t(local));
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const done = await uploadLogo(file, file.name);
      onChange?.(done.link);
    } catch (e) {
      setProblem(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="logo-input">
      <Space align="center" wrap>
        <div className="logo-input-preview">
          {preview ? <img src={preview} alt={t('dept.deptLogo')} data-testid="logo-preview" /> : <span>{t('logo.none')}</span>}
        </div>
        <Upload
          accept=".jpg,.jpeg,.png,image/jpeg,image/png"
          showUploadList={false}
          multiple={false}
          disabled={disabled || busy}
          beforeUpload={(file) => {
            void send(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} loading={busy} data-testid="logo-upload">
            {t('logo.upload')}
          </Button>
        </Upload>
        {link && (
          <Button icon={<DeleteOutlined />} disabled={disabled || busy} onClick={() => onChange?.('')} aria-label={t('logo.remove')}>
            {t('logo.remove')}
          </Button>
        )}
      </Space>
      <Typography.Text type="secondary" className="logo-input-hint">
        {t('logo.hint')}
      </Typography.Text>
      {problem && (
        <div className="ant-form-item-explain-error logo-input-error" role="alert" data-testid="logo-error">
          {problem}
        </div>
      )}
    </div>
  );
}
