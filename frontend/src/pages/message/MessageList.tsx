import { useState } from 'react';
import { App, Button, Descriptions, Empty, Grid, Modal, Select, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { CheckOutlined, DeleteOutlined, ReloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from '../../api/toast';
import { DictSelect, DictTag } from '../../components/DictSelect';
import { COUNT_KEY, LIST_KEY, MESSAGE_TYPE, allRead, markRead, messageInfo, messageList, removeMessages, type SiteMessage } from './api';

/** The spec's page size of the message centre. */
const PAGE_SIZE = 10;

/**
 * The signed-in user's in-site messages (the message centre: the bell's drawer and 消息中心): time, type, plate or
 * driver, content and read state; filter by type and read state; open one (which reads it), mark the selected read
 * (every one of them unread, as the spec asks), mark all read, delete the selected after a confirmation. Every change
 * refreshes the bell's count.
 */
export function MessageList({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const phone = !Grid.useBreakpoint().md;
  const client = useQueryClient();
  const [msgType, setMsgType] = useState<number | undefined>();
  const [isRead, setIsRead] = useState<number | undefined>();
  const [current, setCurrent] = useState(1);
  const [selected, setSelected] = useState<SiteMessage[]>([]);
  const [open, setOpen] = useState<SiteMessage | null>(null);

  const filter = { current, size: PAGE_SIZE, msgType, isRead };
  const list = useQuery({ queryKey: [...LIST_KEY, filter], queryFn: () => messageList(filter), placeholderData: keepPreviousData });
  const rows = list.data?.records ?? [];

  const changed = async () => {
    setSelected([]);
    await Promise.all([client.invalidateQueries({ queryKey: LIST_KEY }), client.invalidateQueries({ queryKey: COUNT_KEY })]);
  };

  const show = async (row: SiteMessage) => {
    setOpen(row);
    if (!row.isRead) {
      const read = await messageInfo(row.id);
      setOpen(read);
      await changed();
    }
  };

  const readSelected = async () => {
    if (!selected.length) return void toast.warning(t('message.selectOne'));
    if (selected.some((r) => r.isRead)) return void toast.warning(t('message.includesRead'));
    await markRead(selected.map((r) => r.id));
    toast.success(t('message.markedRead'));
    await changed();
  };

  const readAll = async () => {
    await allRead();
    toast.success(t('message.allReadDone'));
    await changed();
  };

  const remove = () => {
    if (!selected.length) return void toast.warning(t('message.selectOne'));
    modal.confirm({
      title: t('message.deleteConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await removeMessages(selected.map((r) => r.id));
        toast.success(t('crud.deleted'));
        await changed();
      },
    });
  };

  const state = (value: number | undefined | null) =>
    value ? <Tag>{t('message.read')}</Tag> : <Tag color="red">{t('message.unread')}</Tag>;

  const columns: TableColumnsType<SiteMessage> = [
    // on a phone the time and the plate are in the detail: the content stays in view
    { title: t('message.time'), dataIndex: 'createTime', width: 170, hidden: phone },
    {
      title: t('message.type'),
      dataIndex: 'msgType',
      width: 110,
      render: (value: number) => <DictTag code={MESSAGE_TYPE} biz value={value} />,
    },
    { title: t('message.userNum'), dataIndex: 'userNum', width: 120, hidden: compact || phone, render: (v?: string | null) => v || '-' },
    {
      title: t('message.content'),
      dataIndex: 'title',
      ellipsis: true,
      render: (_: unknown, row) => (
        <Typography.Link onClick={() => void show(row)} strong={!row.isRead}>
          {row.title}
          {/* the bell's list has no vehicle column: an alarm names its vehicle in the line */}
          {compact && row.userNum ? ` · ${row.userNum}` : null}
          {row.content && !compact ? <Typography.Text type="secondary"> — {row.content}</Typography.Text> : null}
        </Typography.Link>
      ),
    },
    { title: t('message.state'), dataIndex: 'isRead', width: 80, render: state },
  ];

  return (
    <div className="message-list">
      <Space wrap style={{ marginBottom: 12 }}>
        <DictSelect
          code={MESSAGE_TYPE}
          biz
          aria-label={t('message.type')}
          placeholder={t('message.allTypes')}
          style={{ width: 140 }}
          value={msgType === undefined ? undefined : String(msgType)}
          onChange={(v?: string) => {
            setMsgType(v ? Number(v) : undefined);
            setCurrent(1);
            setSelected([]);
          }}
        />
        <Select
          allowClear
          aria-label={t('message.state')}
          placeholder={t('message.allStates')}
          style={{ width: 120 }}
          value={isRead}
          options={[
            { value: 0, label: t('message.unread') },
            { value: 1, label: t('message.read') },
          ]}
          onChange={(v?: number) => {
            setIsRead(v);
            setCurrent(1);
            setSelected([]);
          }}
        />
        <Button icon={<CheckOutlined />} onClick={() => void readSelected()}>
          {t('message.markRead')}
        </Button>
        <Button onClick={() => void readAll()}>{t('message.allRead')}</Button>
        <Button danger icon={<DeleteOutlined />} onClick={remove}>
          {t('crud.delete')}
        </Button>
        <Button icon={<ReloadOutlined />} aria-label={t('crud.refresh')} onClick={() => void changed()} />
      </Space>
      <Table<SiteMessage>
        rowKey="id"
        size={compact ? 'small' : 'middle'}
        columns={columns}
        dataSource={rows}
        loading={list.isFetching}
        scroll={{ x: compact || phone ? undefined : 720 }}
        rowSelection={{ selectedRowKeys: selected.map((r) => r.id), onChange: (_keys, picked) => setSelected(picked) }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('message.empty')} /> }}
        pagination={{
          current,
          pageSize: PAGE_SIZE,
          total: list.data?.total ?? 0,
          showSizeChanger: false,
          size: 'small',
          showTotal: (total) => t('crud.total', { count: total }),
          onChange: (page) => setCurrent(page),
        }}
      />
      <Modal open={!!open} title={t('message.detail')} footer={null} onCancel={() => setOpen(null)} destroyOnHidden>
        {open && (
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('message.subject')}>{open.title}</Descriptions.Item>
            <Descriptions.Item label={t('message.type')}>
              <DictTag code={MESSAGE_TYPE} biz value={open.msgType} />
            </Descriptions.Item>
            <Descriptions.Item label={t('message.time')}>{open.createTime}</Descriptions.Item>
            {open.userNum ? <Descriptions.Item label={t('message.userNum')}>{open.userNum}</Descriptions.Item> : null}
            <Descriptions.Item label={t('message.content')}>
              <div className="message-content">{open.content || '-'}</div>
            </Descriptions.Item>
            <Descriptions.Item label={t('message.state')}>{state(open.isRead)}</Descriptions.Item>
          </Descriptions>
        )}
      </Modal>
    </div>
  );
}
