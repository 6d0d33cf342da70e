import { useState } from 'react';
import { Button, Form, Input, Modal, Radio } from 'antd';
import { AuditOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../access/useAccess';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import type { ToolbarExtraProps } from '../../resources/types';
import { audit } from './api';

/** 司机申请 → 批量审核: approve or reject the selected applications with a note; all must be under review. */
export function AuditButton({ selectedRows, reload, clearSelection }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const [open, setOpen] = useState(false);
  const [decision, setDecision] = useState<1 | 2>(1);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  if (!can('driver_apply_audit')) return null;

  const start = () => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    const done = selectedRows.filter((r) => Number(r.applyStatus) !== 0);
    if (done.length) {
      toast.warning(t('driverApply.notPending', { names: done.map((r) => String(r.name)).join('、') }));
      return;
    }
    setOpen(true);
  };

  const submit = async () => {
    setBusy(true);
    try {
      await audit(
        selectedRows.map((r) => String(r.id)),
        decision,
        note.trim(),
      );
      toast.success(t('driverApply.audited', { count: selectedRows.length }));
      setOpen(false);
      setNote('');
      clearSelection();
      reload();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button icon={<AuditOutlined />} onClick={start} data-testid="audit-batch">
        {t('driverApply.audit')}
      </Button>
      {open && (
        <Modal
          open
          title={t('driverApply.auditTitle', { count: selectedRows.length })}
          okText={t('common.confirm')}
          cancelText={t('common.cancel')}
          okButtonProps={{ loading: busy }}
          onOk={() => void submit()}
          onCancel={() => setOpen(false)}
        >
          <Form layout="vertical">
            <Form.Item label={t('driverApply.decision')}>
              <Radio.Group value={decision} onChange={(e) => setDecision(e.target.value as 1 | 2)}>
                <Radio value={1}>{t('driverApply.approve')}</Radio>
                <Radio value={2}>{t('driverApply.reject')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item label={t('driverApply.auditNote')}>
              <Input.TextArea id="auditNote" rows={3} maxLength={255} showCount value={note} onChange={(e) => setNote(e.target.value)} />
            </Form.Item>
          </Form>
        </Modal>
      )}
    </>
  );
}
