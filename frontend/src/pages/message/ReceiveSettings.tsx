import { useState } from 'react';
import { App, Button, Card, Empty, Grid, Input, Modal, Space, Switch, Table, Tag, type TableColumnsType } from 'antd';
import { RollbackOutlined, TeamOutlined, UserAddOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import {
  chooseUsers,
  dropChoices,
  pickableUsers,
  receivePage,
  receiveUsers,
  restoreDefault,
  setSendType,
  type Receive,
  type ReceiveUser,
  type UserChoice,
} from './api';

const KEY = ['message', 'receive'] as const;
const USERS_PAGE = 10;

/**
 * 消息通知 → 消息接收设置: for every alarm message type, whether it is sent as an in-site message and who receives it
 * (the users chosen here, else the tenant's administrators); choose users, remove them, or restore the default.
 * Notices are not listed: they reach every user of the tenant.
 */
export default function ReceiveSettings() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const client = useQueryClient();
  const canEdit = useAccess().can('msg_receive_edit');
  // on a phone the type stays in view and the actions scroll with the row
  const phone = !Grid.useBreakpoint().md;
  const page = useQuery({ queryKey: KEY, queryFn: receivePage });
  const [choosing, setChoosing] = useState<Receive | null>(null);
  const [viewing, setViewing] = useState<Receive | null>(null);
  const reload = () => client.invalidateQueries({ queryKey: KEY });

  const restore = (row: Receive) =>
    modal.confirm({
      title: t('receive.restoreConfirm', { type: row.msgTypeName }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        await restoreDefault(row.msgType);
        toast.success(t('crud.saved'));
        await reload();
      },
    });

  const columns: TableColumnsType<Receive> = [
    { title: t('message.type'), dataIndex: 'msgTypeName', width: phone ? 100 : 130, fixed: phone ? 'left' : undefined },
    {
      title: t('receive.site'),
      dataIndex: 'sendType',
      width: 100,
      render: (value: string, row) => (
        <Switch
          checked={value.split(',').includes('1')}
          disabled={!canEdit}
          aria-label={t('receive.siteOf', { type: row.msgTypeName })}
          onChange={async (on) => {
            await setSendType(row.msgType, on);
            toast.success(t('crud.saved'));
            await reload();
          }}
        />
      ),
    },
    {
      title: t('receive.receivers'),
      dataIndex: 'receivers',
      ellipsis: true,
      render: (value: string, row) => (
        <Space size={4} wrap>
          {row.isDefault && <Tag color="blue">{t('receive.default')}</Tag>}
          <span>{value || '-'}</span>
        </Space>
      ),
    },
    { title: t('receive.count'), dataIndex: 'receiverCount', width: 90 },
    {
      title: t('crud.actions'),
      key: 'actions',
      width: 330,
      fixed: phone ? undefined : 'right',
      render: (_: unknown, row) => (
        <Space size={0} wrap>
          <Button type="link" size="small" icon={<TeamOutlined />} onClick={() => setViewing(row)}>
            {t('receive.list')}
          </Button>
          {canEdit && (
            <Button type="link" size="small" icon={<UserAddOutlined />} onClick={() => setChoosing(row)}>
              {t('receive.choose')}
            </Button>
          )}
          {canEdit && (
            <Button type="link" size="small" icon={<RollbackOutlined />} onClick={() => restore(row)}>
              {t('receive.restore')}
            </Button>
          )}
        </Space>
      ),
    },
  ];

  return (
    <Card variant="borderless" className="crud-card" title={t('receive.title')}>
      <Table<Receive>
        rowKey="msgType"
        columns={columns}
        dataSource={page.data?.records ?? []}
        loading={page.isFetching}
        pagination={false}
        scroll={{ x: 760 }}
      />
      {choosing && (
        <ChooseUsers
          receive={choosing}
          onClose={() => setChoosing(null)}
          onDone={async () => {
            setChoosing(null);
            await reload();
          }}
        />
      )}
      {viewing && <Receivers receive={viewing} canEdit={canEdit} onClose={() => setViewing(null)} onChanged={reload} />}
    </Card>
  );
}

/** The tenant's users not chosen yet for a type: search by account or name, pick several, add them. */
function ChooseUsers({ receive, onClose, onDone }: { receive: Receive; onClose: () => void; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const [account, setAccount] = useState('');
  const [search, setSearch] = useState('');
  const [current, setCurrent] = useState(1);
  const [picked, setPicked] = useState<string[]>([]);
  const users = useQuery({
    queryKey: ['message', 'pickable', receive.msgType, search, current],
    queryFn: () => pickableUsers(receive.msgType, current, USERS_PAGE, search || undefined),
    placeholderData: keepPreviousData,
  });
  const columns: TableColumnsType<UserChoice> = [
    { title: t('receive.account'), dataIndex: 'account' },
    { title: t('receive.realName'), dataIndex: 'realName', render: (v?: string | null) => v || '-' },
  ];
  return (
    <Modal
      open
      title={t('receive.chooseTitle', { type: receive.msgTypeName })}
      okText={t('receive.add')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: !picked.length }}
      onCancel={onClose}
      onOk={async () => {
        await chooseUsers(receive.msgType, picked);
        toast.success(t('crud.saved'));
        await onDone();
      }}
      width={600}
    >
      <Input.Search
        allowClear
        placeholder={t('receive.searchAccount')}
        aria-label={t('receive.searchAccount')}
        value={account}
        onChange={(e) => setAccount(e.target.value)}
        onSearch={(value) => {
          setSearch(value.trim());
          setCurrent(1);
        }}
        style={{ marginBottom: 12 }}
      />
      <Table<UserChoice>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={users.data?.records ?? []}
        loading={users.isFetching}
        rowSelection={{ selectedRowKeys: picked, onChange: (keys) => setPicked(keys.map(String)), preserveSelectedRowKeys: true }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
        pagination={{ current, pageSize: USERS_PAGE, total: users.data?.total ?? 0, size: 'small', onChange: setCurrent }}
      />
    </Modal>
  );
}

/** The users chosen for a type (none: its administrators receive it), each removable. */
function Receivers({
  receive,
  canEdit,
  onClose,
  onChanged,
}: {
  receive: Receive;
  canEdit: boolean;
  onClose: () => void;
  onChanged: () => Promise<void>;
}) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const client = useQueryClient();
  const [current, setCurrent] = useState(1);
  const key = ['message', 'receivers', receive.msgType, current];
  const users = useQuery({ queryKey: key, queryFn: () => receiveUsers(receive.msgType, current, USERS_PAGE) });
  const drop = (row: ReceiveUser) =>
    modal.confirm({
      title: t('receive.removeConfirm', { name: row.realName || row.account }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await dropChoices([row.id]);
        toast.success(t('crud.deleted'));
        await Promise.all([client.invalidateQueries({ queryKey: ['message', 'receivers', receive.msgType] }), onChanged()]);
      },
    });
  const columns: TableColumnsType<ReceiveUser> = [
    { title: t('receive.account'), dataIndex: 'account' },
    { title: t('receive.realName'), dataIndex: 'realName', render: (v?: string | null) => v || '-' },
    { title: t('message.time'), dataIndex: 'createTime', width: 170 },
    {
      title: t('crud.actions'),
      key: 'actions',
      width: 90,
      hidden: !canEdit,
      render: (_: unknown, row) => (
        <Button type="link" size="small" danger onClick={() => drop(row)}>
          {t('receive.remove')}
        </Button>
      ),
    },
  ];
  return (
    <Modal open title={t('receive.listTitle', { type: receive.msgTypeName })} footer={null} onCancel={onClose} width={640}>
      <Table<ReceiveUser>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={users.data?.records ?? []}
        loading={users.isFetching}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('receive.none')} /> }}
        pagination={{ current, pageSize: USERS_PAGE, total: users.data?.total ?? 0, size: 'small', onChange: setCurrent }}
      />
    </Modal>
  );
}
