import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, Drawer, Empty, Flex, Input, Select, Spin, Table, Tag, Tree } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { DataNode } from 'antd/es/tree';
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../api/client';
import { ABNORMAL, REASONS, formatDuration, type AbnormalCar, type AbnormalNode } from './api';

type Reason = (typeof REASONS)[number];

function treeData(nodes: AbnormalNode[]): DataNode[] {
  return nodes.map((n) => ({ key: String(n.id), title: `${n.title} (${n.count})`, children: treeData(n.children ?? []) }));
}

/** One vehicle's conditions, fault codes and alarms in progress. */
function AbnormalDetail({ carId, onClose }: { carId: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const info = useQuery({
    queryKey: ['abnormal-info', carId],
    queryFn: () => apiGet(ABNORMAL.info, { carId: carId! }),
    enabled: !!carId,
  });
  const d = info.data;
  return (
    <Drawer open={!!carId} onClose={onClose} title={d?.carNo ?? t('alarm.abnormal.detail')} size={560} data-testid="abnormal-detail">
      {info.isLoading || !d ? (
        <Spin />
      ) : (
        <Flex vertical gap={16}>
          <Descriptions size="small" column={1} bordered>
            <Descriptions.Item label={t('report.organisation')}>{d.mechanismName || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('alarm.deviceNumber')}>{d.deviceNumber || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('alarm.abnormal.lastSeen')}>{d.lastSeen ?? '-'}</Descriptions.Item>
            <Descriptions.Item label={t('alarm.code')}>{d.faultCodes.length ? d.faultCodes.join(', ') : '-'}</Descriptions.Item>
          </Descriptions>
          <Table
            size="small"
            rowKey="reason"
            pagination={false}
            data-testid="abnormal-conditions"
            dataSource={d.conditions}
            columns={[
              { key: 'reason', title: t('alarm.abnormal.reason'), render: (_v, c) => t(`alarm.reason.${c.reason}`) },
              { key: 'since', dataIndex: 'since', title: t('alarm.abnormal.since'), render: (v: string | null) => v ?? '-' },
              { key: 'info', dataIndex: 'info', title: t('alarm.abnormal.info'), render: (v: string) => v || '-' },
            ]}
          />
          <Table
            size="small"
            rowKey="id"
            pagination={false}
            data-testid="abnormal-open"
            dataSource={d.openAlarms}
            locale={{ emptyText: t('alarm.abnormal.noOpen') }}
            columns={[
              { key: 'kind', dataIndex: 'kindName', title: t('alarm.kindLabel') },
              { key: 'beginTime', dataIndex: 'beginTime', title: t('alarm.beginTime') },
              { key: 'duration', title: t('alarm.duration'), render: (_v, a) => formatDuration(a.durationS) },
              { key: 'value', dataIndex: 'value', title: t('alarm.value'), align: 'right' },
            ]}
          />
        </Flex>
      )}
    </Drawer>
  );
}

/**
 * 报警中心 → 异常车辆: the vehicles abnormal now (offline for days, never reported, terminal clock fault, a battery
 * alarm open, fault codes active), by organisation, with the detail of each.
 */
export default function AbnormalVehicles() {
  const { t } = useTranslation();
  const [organisation, setOrganisation] = useState<string | undefined>();
  const [draft, setDraft] = useState<{ carNo?: string; reason?: Reason }>({});
  const [applied, setApplied] = useState<{ carNo?: string; reason?: Reason }>({});
  const [page, setPage] = useState({ current: 1, size: 10 });
  const [open, setOpen] = useState<string | null>(null);

  const tree = useQuery({ queryKey: ['abnormal-tree', applied.reason], queryFn: () => apiGet(ABNORMAL.tree, { reason: applied.reason }) });
  const query = { ...applied, carNo: applied.carNo?.trim() || undefined, mechanismId: organisation, current: page.current, size: page.size };
  const list = useQuery({
    queryKey: ['abnormal', query],
    queryFn: () => apiGet(ABNORMAL.page, query),
    placeholderData: keepPreviousData,
  });

  const columns: ColumnsType<AbnormalCar> = [
    { key: '__index', title: '#', width: 56, render: (_v, _r, i) => (page.current - 1) * page.size + i + 1 },
    { key: 'mechanismName', dataIndex: 'mechanismName', title: t('report.organisation'), render: (v: string) => v || '-' },
    { key: 'carNo', dataIndex: 'carNo', title: t('alarm.carNo') },
    { key: 'deviceNumber', dataIndex: 'deviceNumber', title: t('alarm.deviceNumber'), render: (v: string) => v || '-' },
    {
      key: 'reasons',
      title: t('alarm.abnormal.reason'),
      render: (_v, r) => (
        <Flex wrap gap={4}>
          {r.reasons.map((x) => (
            <Tag key={x} color={x === 'fault' || x === 'battery' ? 'error' : 'warning'}>
              {t(`alarm.reason.${x}`)}
            </Tag>
          ))}
        </Flex>
      ),
    },
    { key: 'since', dataIndex: 'since', title: t('alarm.abnormal.since'), render: (v: string | null) => v ?? '-' },
    { key: 'lastSeen', dataIndex: 'lastSeen', title: t('alarm.abnormal.lastSeen'), render: (v: string | null) => v ?? '-' },
    {
      key: 'actions',
      title: t('crud.actions'),
      render: (_v, r) => (
        <Button type="link" size="small" onClick={() => setOpen(String(r.carId))}>
          {t('crud.view')}
        </Button>
      ),
    },
  ];

  return (
    <Flex gap={12} className="alarm-page abnormal-page" wrap>
      <Card variant="borderless" size="small" title={t('report.organisation')} className="abnormal-tree" data-testid="abnormal-tree">
        {tree.data && tree.data.length ? (
          <Tree
            defaultExpandAll
            selectedKeys={organisation ? [organisation] : []}
            onSelect={(keys) => {
              setOrganisation(keys[0] ? String(keys[0]) : undefined);
              setPage((p) => ({ ...p, current: 1 }));
            }}
            treeData={treeData(tree.data)}
          />
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} />
        )}
      </Card>
      <Flex vertical gap={12} style={{ flex: 1, minWidth: 0 }}>
        <Card variant="borderless" size="small">
          <Flex wrap gap={12} align="center" className="report-filters">
            <Input
              allowClear
              maxLength={64}
              value={draft.carNo ?? ''}
              onChange={(e) => setDraft((d) => ({ ...d, carNo: e.target.value }))}
              placeholder={t('alarm.carNo')}
              aria-label={t('alarm.carNo')}
              style={{ width: 160, maxWidth: '100%' }}
            />
            <Select
              allowClear
              value={draft.reason}
              onChange={(v: Reason | undefined) => setDraft((d) => ({ ...d, reason: v }))}
              placeholder={t('alarm.abnormal.reason')}
              aria-label={t('alarm.abnormal.reason')}
              options={REASONS.map((r) => ({ value: r, label: t(`alarm.reason.${r}`) }))}
              style={{ width: 180, maxWidth: '100%' }}
            />
            <Flex gap={8}>
              <Button
                type="primary"
                icon={<SearchOutlined />}
                onClick={() => {
                  setApplied(draft);
                  setPage((p) => ({ ...p, current: 1 }));
                }}
              >
                {t('crud.search')}
              </Button>
              <Button
                icon={<ReloadOutlined />}
                onClick={() => {
                  setDraft({});
                  setApplied({});
                  setOrganisation(undefined);
                  setPage((p) => ({ ...p, current: 1 }));
                }}
              >
                {t('crud.reset')}
              </Button>
            </Flex>
          </Flex>
        </Card>
        <Card variant="borderless" className="crud-card" title={t('alarm.abnormal.title')}>
          <Table<AbnormalCar>
            rowKey="carId"
            size="middle"
            data-testid="abnormal-table"
            columns={columns}
            dataSource={list.data?.records ?? []}
            loading={list.isFetching && (list.isPlaceholderData || !list.data)}
            scroll={{ x: 'max-content' }}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
            pagination={{
              current: list.data?.current ?? page.current,
              pageSize: page.size,
              total: list.data?.total ?? 0,
              showSizeChanger: true,
              pageSizeOptions: [10, 30, 50, 100, 200],
              showTotal: (total) => t('crud.total', { count: total }),
              onChange: (current, size) => setPage({ current: size === page.size ? current : 1, size }),
            }}
          />
        </Card>
      </Flex>
      <AbnormalDetail carId={open} onClose={() => setOpen(null)} />
    </Flex>
  );
}
