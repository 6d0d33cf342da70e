import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { website } from '../../config/website';

export default function ErrorPage({ status }: { status: '403' | '404' | '500' }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useEffect(() => {
    document.title = `${status} · ${website.title}`;
  }, [status]);
  return (
    <div className="error-page">
      <Result
        status={status}
        title={status}
        subTitle={t(`error.${status}`)}
        extra={
          <Button type="primary" onClick={() => void navigate('/')}>
            {t('error.backHome')}
          </Button>
        }
      />
    </div>
  );
}
