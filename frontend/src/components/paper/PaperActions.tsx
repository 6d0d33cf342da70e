import { useState } from 'react';
import { App, Button, DatePicker, Form, Input, Modal, Radio, Space } from 'antd';
import { AuditOutlined, ExportOutlined, ImportOutlined, InboxOutlined, SendOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../access/useAccess';
import { toast } from '../../api/toast';
import type { Row, ToolbarExtraProps } from '../../resources/types';
import { auditPapers, loanPapers, submitPapers, type LoanForm } from './api';
import { mixedState, type Axis } from './paper';

type Dialog = 'audit' | 'lend' | 'return' | 'archive';
/** What each action's selection must share (spec 001 §5), checked here before the call (and by the server). */
const SHARED: Record<Dialog | 'submit', Axis[]> = {
  submit: [],
  audit: ['auditStatus'],
  lend: ['loanStatus', 'archiveStatus'],
  return: ['loanStatus', 'archiveStatus'],
  archive: ['loanStatus', 'archiveStatus'],
};
const BUTTON: Record<Dialog | 'submit', string> = {
  submit: 'driver_paper_submit',
  audit: 'driver_paper_audit',
  lend: 'driver_paper_loan',
  return: 'driver_paper_loan',
  archive: 'driver_paper_archive',
};

interface Values {
  auditResult?: 1 | 2;
  auditNote?: string;
  loanOrg?: string;
  loanPurpose?: string;
  returnDate?: Dayjs;
  certificateNumber?: string;
  note?: string;
  archivePlace?: string;
}

function ActionDialog({ kind, rows, onClose, onDone }: { kind: Dialog; rows: Row[]; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const required = (label: string) => [{ required: true, whitespace: true, message: t('crud.pleaseEnter', { label: t(label) }) }];

  const save = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    setSaving(true);
    try {
      if (kind === 'audit') await auditPapers(rows, v.auditResult ?? 1, v.auditNote ?? '');
      else {
        const body: LoanForm = { note: v.note };
        if (kind === 'lend')
          Object.assign(body, {
            loanOrg: v.loanOrg,
            loanPurpose: v.loanPurpose,
            returnDate: v.returnDate?.format('YYYY-MM-DD 23:59:59'),
            certificateNumber: v.certificateNumber,
          });
        if (kind === 'archive') body.archivePlace = v.archivePlace;
        await loanPapers(rows, kind === 'lend' ? 1 : kind === 'return' ? 2 : 3, body);
      }
      toast.success(t(`paper.done.${kind}`, { count: rows.length }));
      onDone();
    } catch {
      // the request wrapper showed the server's message (it names the paper and its state)
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={`${t(`paper.action.${kind}`)} (${rows.length})`}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={() => void save()}
      onCancel={onClose}
      width={520}
    >
      <Form form={form} layout="vertical" initialValues={{ auditResult: 1 }} data-testid={`paper-${kind}-form`}>
        {kind === 'audit' && (
          <>
            <Form.Item name="auditResult" label={t('paper.auditResult')}>
              <Radio.Group
                options={[
                  { value: 1, label: t('paper.auditPass') },
                  { value: 2, label: t('paper.auditFail') },
                ]}
              />
            </Form.Item>
            <Form.Item name="auditNote" label={t('paper.auditNote')} rules={[{ max: 255 }]}>
              <Input.TextArea rows={3} maxLength={255} showCount aria-label={t('paper.auditNote')} />
            </Form.Item>
          </>
        )}
        {kind === 'lend' && (
          <>
            <Form.Item name="loanOrg" label={t('paper.loanOrg')} rules={[...required('paper.loanOrg'), { max: 64 }]}>
              <Input maxLength={64} aria-label={t('paper.loanOrg')} />
            </Form.Item>
            <Form.Item name="loanPurpose" label={t('paper.loanPurpose')} rules={[...required('paper.loanPurpose'), { max: 255 }]}>
              <Input maxLength={255} aria-label={t('paper.loanPurpose')} />
            </Form.Item>
            <Form.Item
              name="returnDate"
              label={t('paper.returnDate')}
              rules={[{ required: true, message: t('crud.pleaseSelect', { label: t('paper.returnDate') }) }]}
            >
              <DatePicker style={{ width: '100%' }} disabledDate={(d) => d.isBefore(dayjs(), 'day')} aria-label={t('paper.returnDate')} />
            </Form.Item>
            <Form.Item
              name="certificateNumber"
              label={t('paper.certificateNumber')}
              extra={t('paper.certificateNumberHint')}
              rules={[...required('paper.certificateNumber'), { max: 32 }]}
            >
              <Input maxLength={32} aria-label={t('paper.certificateNumber')} />
            </Form.Item>
          </>
        )}
        {kind === 'archive' && (
          <Form.Item name="archivePlace" label={t('paper.archivePlace')} rules={[{ max: 64 }]}>
            <Input maxLength={64} aria-label={t('paper.archivePlace')} />
          </Form.Item>
        )}
        {kind !== 'audit' && (
          <Form.Item name="note" label={t('paper.note')} rules={[{ max: 255 }]}>
            <Input.TextArea rows={2} maxLength={255} aria-label={t('paper.note')} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

/** The toolbar of 司机证件: submit for review, audit, lend, return and archive the selected papers. */
export function PaperActions({ selectedRows, reload, clearSelection }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const { can } = useAccess();
  const [open, setOpen] = useState<Dialog | null>(null);
  const done = () => {
    setOpen(null);
    clearSelection();
    reload();
  };

  const start = (kind: Dialog | 'submit') => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    const mixed = mixedState(selectedRows, SHARED[kind]);
    if (mixed) {
      toast.warning(t('paper.mixed', { state: t(`paper.axis.${mixed}`) }));
      return;
    }
    if (kind !== 'submit') {
      setOpen(kind);
      return;
    }
    modal.confirm({
      title: t('paper.confirmSubmit', { count: selectedRows.length }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        try {
          await submitPapers(selectedRows);
          toast.success(t('paper.done.submit', { count: selectedRows.length }));
          done();
        } catch {
          // shown by the request wrapper
        }
      },
    });
  };

  const buttons: { kind: Dialog | 'submit'; icon: React.ReactNode }[] = [
    { kind: 'submit', icon: <SendOutlined /> },
    { kind: 'audit', icon: <AuditOutlined /> },
    { kind: 'lend', icon: <ExportOutlined /> },
    { kind: 'return', icon: <ImportOutlined /> },
    { kind: 'archive', icon: <InboxOutlined /> },
  ];
  const shown = buttons.filter((b) => can(BUTTON[b.kind]) && (b.kind !== 'archive' || can(BUTTON.lend)));
  if (shown.length === 0) return null;
  return (
    <Space wrap size={8}>
      {shown.map((b) => (
        <Button key={b.kind} icon={b.icon} onClick={() => start(b.kind)} data-testid={`paper-${b.kind}`}>
          {t(`paper.action.${b.kind}`)}
        </Button>
      ))}
      {open && <ActionDialog kind={open} rows={selectedRows} onClose={() => setOpen(null)} onDone={done} />}
    </Space>
  );
}
