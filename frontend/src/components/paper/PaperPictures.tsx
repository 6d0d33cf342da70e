import { useState } from 'react';
import { Button, Flex, Select, Typography, Upload } from 'antd';
import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { toast } from '../../api/toast';
import type { FieldControlProps } from '../../resources/types';
import { uploadFile } from '../files/api';
import { AttachImage } from './AttachImage';
import { MAX_PICTURES, pictureProblem, picturesOf, sideOptions, type Picture } from './paper';

/**
 * A paper's pictures in its form: uploaded to the tenant's file store (jpg or png, at most 5 MB, checked here and
 * by the server by content), each marked front, back or other, previewed, at most 6.
 */
export function PaperPictures({ value, onChange, disabled }: FieldControlProps) {
  const { t } = useTranslation();
  const pictures = picturesOf(value);
  const [busy, setBusy] = useState(false);
  const set = (next: Picture[]) => onChange?.(next);

  const add = async (file: File) => {
    const problem = pictureProblem(file);
    if (problem) {
      toast.warning(t(`paper.pictures.${problem}`));
      return;
    }
    if (pictures.length >= MAX_PICTURES) {
      toast.warning(t('paper.pictures.tooMany', { count: MAX_PICTURES }));
      return;
    }
    setBusy(true);
    try {
      const done = await uploadFile(file, file.name, 'driverPaper');
      const side = pictures.some((p) => p.side === 1) ? (pictures.some((p) => p.side === 2) ? 3 : 2) : 1;
      set([...pictures, { attachId: String(done.attachId), side, link: done.link, originalName: done.originalName }]);
    } catch {
      // the request wrapper showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="paper-pictures" data-testid="paper-pictures">
      <Flex wrap gap={12}>
        {pictures.map((p, i) => (
          <Flex key={p.attachId} vertical gap={4} align="center" className="paper-picture">
            <AttachImage id={p.attachId} alt={p.originalName ?? t('paper.pictures.label')} />
            <Select
              size="small"
              style={{ width: 96 }}
              value={p.side}
              disabled={disabled}
              aria-label={t('paper.pictures.side')}
              options={sideOptions.map((o) => ({ value: o.value, label: t(o.label) }))}
              onChange={(side: number) => set(pictures.map((q, j) => (j === i ? { ...q, side } : q)))}
            />
            <Button
              size="small"
              type="text"
              danger
              icon={<DeleteOutlined />}
              disabled={disabled}
              aria-label={t('paper.pictures.remove')}
              onClick={() => set(pictures.filter((_, j) => j !== i))}
            />
          </Flex>
        ))}
      </Flex>
      <Upload
        accept=".jpg,.jpeg,.png,image/jpeg,image/png"
        showUploadList={false}
        disabled={disabled || busy || pictures.length >= MAX_PICTURES}
        beforeUpload={(file) => {
          void add(file);
          return false;
        }}
      >
        <Button icon={<UploadOutlined />} loading={busy} disabled={disabled || pictures.length >= MAX_PICTURES} style={{ marginTop: 8 }}>
          {t('paper.pictures.upload')}
        </Button>
      </Upload>
      <Typography.Text type="secondary" style={{ display: 'block', marginTop: 4 }}>
        {t('paper.pictures.hint', { count: MAX_PICTURES })}
      </Typography.Text>
    </div>
  );
}
