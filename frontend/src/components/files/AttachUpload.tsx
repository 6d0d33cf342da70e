import { useState } from 'react';
import { Button, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import type { ToolbarExtraProps } from '../../resources/types';
import { uploadFile } from './api';

/**
 * "Upload" on the attachments' toolbar (button `attach_add`): sends the chosen file to the tenant's store; the server
 * checks its size and kind by its content and says why it refuses one.
 */
export function AttachUpload({ reload }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { canDo } = useAccess();
  const [busy, setBusy] = useState(false);
  if (!canDo('attach', 'add')) return null;

  const send = async (file: File) => {
    setBusy(true);
    try {
      const done = await uploadFile(file, file.name);
      toast.success(t('attach.uploaded', { name: done.originalName }));
      reload();
    } catch (e) {
      // the request has shown the server's message already; anything else is shown here
      if (!(e instanceof ApiError)) toast.error(String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Upload
      showUploadList={false}
      multiple={false}
      beforeUpload={(file) => {
        void send(file);
        return false;
      }}
    >
      <Button type="primary" icon={<UploadOutlined />} loading={busy} data-testid="attach-upload">
        {t('attach.upload')}
      </Button>
    </Upload>
  );
}
