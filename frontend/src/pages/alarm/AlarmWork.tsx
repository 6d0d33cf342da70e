import { useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Drawer, Dropdown, Empty, Flex, Form, Input, Modal, Select, Space, Tag, Timeline, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { CheckOutlined, CloseCircleOutlined, EditOutlined, MoreOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { apiGet, apiPost } from '../../api/client';
import { DictSelect } from '../../components/DictSelect';
import { useDictOptions } from '../../components/crud/lookups';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import type { AlarmRow } from './api';
import { WORK, trackWindow, useAlarmWork } from './work';

/** The tenant's business dictionary of alarm causes (backend reporting/handling.py CAUSE_DICT). */
const CAUSES = 'alarm_cause';

/** The buttons of working alarms (backend reporting/api/handling.py), each checked by the server too. */
export const ALARM_ACK = 'alarm_record_ack';
export const ALARM_HANDLE = 'alarm_record_handle';
export const ALARM_CLOSE = 'alarm_record_close';
/** Work states: 0 unacknowledged, 1 acknowledged, 2 handled, 3 closed. */
const COLORS = ['error', 'warning', 'processing', 'success'] as const;

export function WorkStatusTag({ status }: { status: number }) {
  const { t } = useTranslation();
  return <Tag color={COLORS[status] ?? 'default'}>{t(`alarm.work.status.${status}`)}</Tag>;
}

/** The selection's buttons above the list: acknowledge, close (with an optional note), each after a confirmation. */
export function SelectionActions({ rows, onDone }: { rows: AlarmRow[]; onDone: () => void }) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const { modal } = App.useApp();
  const { ack, close } = useAlarmWork();
  const note = useRef('');
  if (!can(ALARM_ACK) && !can(ALARM_CLOSE)) return null;
  const pick = (test: (r: AlarmRow) => boolean) => rows.filter(test).map((r) => String(r.id));
  const acknowledge = () => {
    const ids = pick((r) => (r.workStatus ?? 0) === 0);
    if (ids.length === 0) return toast.warning(t('alarm.work.noneToAck'));
    modal.confirm({
      title: t('alarm.work.ackConfirm', { count: ids.length }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: () => ack.mutateAsync(ids).then(onDone),
    });
  };
  const closeThem = () => {
    const ids = pick((r) => (r.workStatus ?? 0) !== 3 && !r.open);
    if (ids.length === 0) return toast.warning(t('alarm.work.noneToClose'));
    note.current = '';
    modal.confirm({
      title: t('alarm.work.closeConfirm', { count: ids.length }),
      content: (
        <Input.TextArea
          aria-label={t('alarm.work.closeNote')}
          placeholder={t('alarm.work.closeNote')}
          maxLength={500}
          rows={2}
          onChange={(e) => {
            note.current = e.target.value;
          }}
        />
      ),
      okText: t('alarm.work.close'),
      cancelText: t('common.cancel'),
      onOk: () => close.mutateAsync({ ids, note: note.current }).then(onDone),
    });
  };
  return (
    <Space wrap>
      {can(ALARM_ACK) && (
        <Button icon={<CheckOutlined />} disabled={rows.length === 0} onClick={acknowledge}>
          {t('alarm.work.ack')}
        </Button>
      )}
      {can(ALARM_CLOSE) && (
        <Button icon={<CloseCircleOutlined />} disabled={rows.length === 0} onClick={closeThem}>
          {t('alarm.work.close')}
        </Button>
      )}
    </Space>
  );
}

/** A row's actions: handle (a form), and under 更多 its steps, the vehicle on the monitor and its track then. */
export function RowActions({ row, onHandle, onSteps }: { row: AlarmRow; onHandle: (r: AlarmRow) => void; onSteps: (r: AlarmRow) => void }) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const navigate = useNavigate();
  const closed = (row.workStatus ?? 0) === 3;
  const around = trackWindow(row);
  const more: MenuProps['items'] = [
    { key: 'steps', label: t('alarm.work.steps'), onClick: () => onSteps(row) },
    { key: 'monitor', label: t('alarm.work.onMonitor'), onClick: () => navigate(`/fleet/monitor?carId=${String(row.carId)}`) },
    {
      key: 'track',
      label: t('alarm.work.track'),
      onClick: () => navigate(`/fleet/track?carId=${String(row.carId)}&beginTime=${encodeURIComponent(around.begin)}&endTime=${encodeURIComponent(around.end)}`),
    },
  ];
  return (
    <Space size={0}>
      {can(ALARM_HANDLE) && !closed && (
        <Button type="link" size="small" icon={<EditOutlined />} onClick={() => onHandle(row)}>
          {t('alarm.work.handle')}
        </Button>
      )}
      <Dropdown menu={{ items: more }} trigger={['click']}>
        <Button type="link" size="small" icon={<MoreOutlined />} aria-label={t('crud.more')}>
          {t('crud.more')}
        </Button>
      </Dropdown>
    </Space>
  );
}

type HandleValues = { note: string; cause?: string; assigneeId?: string };

/** 处理: a note (required), a cause from the tenant's alarm_cause dictionary, an assignee. */
export function HandleDialog({ row, onClose }: { row: AlarmRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [form] = Form.useForm<HandleValues>();
  const people = useQuery({ queryKey: ['alarm-assignees'], queryFn: () => apiGet(`${WORK}/assignees`), enabled: !!row });
  const save = useMutation({
    mutationFn: (v: HandleValues) => apiPost(`${WORK}/handle`, { id: String(row?.id), note: v.note, cause: v.cause ?? null, assigneeId: v.assigneeId ?? null }),
    onSuccess: async () => {
      toast.success(t('alarm.work.handled'));
      await client.invalidateQueries({ queryKey: ['alarms'] });
      onClose();
    },
  });
  return (
    <Modal
      open={!!row}
      title={row ? t('alarm.work.handleTitle', { car: row.carNo, kind: row.kindName }) : ''}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={save.isPending}
      destroyOnHidden
      data-testid="alarm-handle"
    >
      {row && (
        <Form<HandleValues>
          form={form}
          layout="vertical"
          preserve={false}
          initialValues={{ note: row.note ?? '', cause: row.cause ?? undefined }}
          onFinish={(v) => save.mutate(v)}
        >
          <Typography.Paragraph type="secondary">
            {row.beginTime} · {row.deviceNumber} {row.code ? `· ${row.code}` : ''}
          </Typography.Paragraph>
          <Form.Item name="note" label={t('alarm.work.note')} rules={[{ required: true, whitespace: true, message: t('alarm.work.noteRequired') }]}>
            <Input.TextArea rows={3} maxLength={500} showCount />
          </Form.Item>
          <Form.Item name="cause" label={t('alarm.work.cause')}>
            <DictSelect code={CAUSES} biz />
          </Form.Item>
          <Form.Item name="assigneeId" label={t('alarm.work.assignee')}>
            <Select
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              loading={people.isLoading}
              options={(people.data ?? []).map((p) => ({ value: String(p.id), label: `${p.name} (${p.account})` }))}
            />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}

/** The steps of one alarm's work, oldest first. */
export function StepsDrawer({ row, onClose }: { row: AlarmRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const steps = useQuery({ queryKey: ['alarm-steps', row?.id], queryFn: () => apiGet(`${WORK}/history`, { id: String(row?.id) }), enabled: !!row });
  const { options: causes } = useDictOptions(CAUSES, true);
  const causeName = (key?: string | null) => (key ? (causes.find((c) => c.value === key)?.label ?? key) : null);
  return (
    <Drawer open={!!row} onClose={onClose} title={row ? `${row.carNo} · ${row.kindName}` : ''} size={420} data-testid="alarm-steps">
      {row && (
        <Flex vertical gap={8}>
          <Space>
            <WorkStatusTag status={row.workStatus ?? 0} />
            <Typography.Text type="secondary">{row.beginTime}</Typography.Text>
          </Space>
          {steps.data && steps.data.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('alarm.work.noSteps')} />
          ) : (
            <Timeline
              items={(steps.data ?? []).map((s) => ({
                children: (
                  <div>
                    <Typography.Text strong>{t(`alarm.work.step.${s.action}`)}</Typography.Text> · {s.userName} · {s.time}
                    {s.note && <div>{s.note}</div>}
                    {s.cause && <div>{t('alarm.work.cause')}: {causeName(s.cause)}</div>}
                    {s.assigneeName && <div>{t('alarm.work.assignee')}: {s.assigneeName}</div>}
                  </div>
                ),
              }))}
            />
          )}
        </Flex>
      )}
    </Drawer>
  );
}
