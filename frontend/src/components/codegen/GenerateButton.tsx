import { useState } from 'react';
import { Button } from 'antd';
import { CodeOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../access/useAccess';
import { action } from '../../api/manifest';
import { ApiError, download } from '../../api/request';
import { toast } from '../../api/toast';
import { saveFile } from '../crud/saveFile';
import type { ToolbarExtraProps } from '../../resources/types';

/** 代码生成 → 生成代码: downloads the zip of the selected records' code (declaration, schemas, migration, web page). */
export function GenerateButton({ selectedRows }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const [busy, setBusy] = useState(false);
  if (!can('code_gen')) return null;

  const generate = async () => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    setBusy(true);
    try {
      const ids = selectedRows.map((r) => String(r.id)).join(',');
      const file = await download(action('code', 'gen_code'), { ids, system: 'saber' }, { method: 'POST', fallbackName: 'code.zip' });
      saveFile(file.blob, file.filename);
      toast.success(t('code.generated', { count: selectedRows.length }));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button icon={<CodeOutlined />} loading={busy} onClick={() => void generate()} data-testid="code-generate">
      {t('code.generate')}
    </Button>
  );
}
