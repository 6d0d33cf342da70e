import { useState } from 'react';
import { Button } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import type { Row } from '../../resources/types';
import { downloadAttach } from './api';

/** An attachment's name as a button that downloads its file (with the session's token). */
export function AttachName({ row }: { row: Row }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const name = String(row.originalName ?? '');
  const fetchIt = async () => {
    setBusy(true);
    try {
      await downloadAttach(String(row.id), name);
    } catch (e) {
      if (!(e instanceof ApiError)) toast.error(String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      type="link"
      size="small"
      icon={<DownloadOutlined />}
      loading={busy}
      title={t('attach.download')}
      onClick={(e) => {
        e.stopPropagation();
        void fetchIt();
      }}
      style={{ padding: 0, height: 'auto', whiteSpace: 'normal', textAlign: 'left' }}
    >
      {name}
    </Button>
  );
}
