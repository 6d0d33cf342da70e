import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Input, Table, Tabs, TreeSelect } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../api/client';
import { Can } from '../../components/Can';
import { ExportButton } from '../../components/crud/Transfer';
import { FAULTS, FAULT_EXPORT, type FaultCar, type FaultTreeNode, type FaultType } from './api';
import { OrganisationFilter, RangeFilter, RangeProblem } from './Filters';
import { cleaned, useAlarmRange } from './hooks';

type By = 'car' | 'type';
type Applied = Record<string, string | number | boolean>;

function typeTree(nodes: FaultTreeNode[]): { value: string; title: string; children: { value: string; title: string }[] }[] {
  return nodes.map((n) => ({
    value: `type:${n.key}`,
    title: `${n.title} (${n.count})`,
    children: (n.children ?? []).map((c) => ({ value: `code:${c.title}`, title: `${c.title} (${c.count})` })),
  }));
}

/**
 * 报警中心 → 故障码: the fault codes the terminals reported over a range of at most 7 days, by vehicle or by code,
 * with the codes active now, filtered by organisation, vehicle and fault type or code, and exported.
 */
export default function FaultCodes() {
  const { t } = useTranslation();
  const range = useAlarmRange();
  const [by, setBy] = useState<By>('car');
  const [organisation, setOrganisation] = useState<string | undefined>();
  const [carNo, setCarNo] = useState('');
  const [picked, setPicked] = useState<string | undefined>();
  const [applied, setApplied] = useState<Applied>(() => range.initial);
  const [page, setPage] = useState({ current: 1, size: 10 });

  const treeParams = { ...applied, code: undefined, faultType: undefined };
  const tree = useQuery({ queryKey: ['fault-tree', treeParams], queryFn: () => apiGet(FAULTS.tree, treeParams) });
  const query = { ...applied, current: page.current, size: page.size };
  const cars = useQuery({
    queryKey: ['fault-cars', query],
    queryFn: () => apiGet(FAULTS.cars, query),
    placeholderData: keepPreviousData,
    enabled: by === 'car',
  });
  const types = useQuery({
    queryKey: ['fault-types', query],
    queryFn: () => apiGet(FAULTS.types, query),
    placeholderData: keepPreviousData,
    enabled: by === 'type',
  });

  const search = () => {
    if (range.problem) return;
    const [what, value] = picked ? picked.split(/:(.*)/s) : [];
    setApplied(
      cleaned({
        ...range.params(),
        mechanismId: organisation,
        carNo,
        faultType: what === 'type' ? value : undefined,
        code: what === 'code' ? value : undefined,
      }),
    );
    setPage((p) => ({ ...p, current: 1 }));
  };
  const reset = () => {
    range.reset();
    setOrganisation(undefined);
    setCarNo('');
    setPicked(undefined);
    setApplied(range.initial);
    setPage((p) => ({ ...p, current: 1 }));
  };

  const index = { key: '__index', title: '#', width: 56, render: (_v: unknown, _r: unknown, i: number) => (page.current - 1) * page.size + i + 1 };
  const dash = (v: string) => v || '-';
  const carColumns: ColumnsType<FaultCar> = [
    index,
    { key: 'mechanismName', dataIndex: 'mechanismName', title: t('report.organisation'), render: dash },
    { key: 'carNo', dataIndex: 'carNo', title: t('alarm.carNo') },
    { key: 'deviceNumber', dataIndex: 'deviceNumber', title: t('alarm.deviceNumber'), render: dash },
    { key: 'count', dataIndex: 'count', title: t('alarm.fault.count'), align: 'right' },
    { key: 'codes', dataIndex: 'codes', title: t('alarm.fault.codes') },
    { key: 'lastTime', dataIndex: 'lastTime', title: t('alarm.fault.lastTime') },
    { key: 'active', dataIndex: 'active', title: t('alarm.fault.active'), render: dash },
  ];
  const typeColumns: ColumnsType<FaultType> = [
    index,
    { key: 'faultType', dataIndex: 'faultType', title: t('alarm.fault.type'), render: (v: string) => (v === 'other' ? t('alarm.fault.other') : v) },
    { key: 'code', dataIndex: 'code', title: t('alarm.code') },
    { key: 'count', dataIndex: 'count', title: t('alarm.fault.times'), align: 'right' },
    { key: 'cars', dataIndex: 'cars', title: t('alarm.fault.cars'), align: 'right' },
    { key: 'lastTime', dataIndex: 'lastTime', title: t('alarm.fault.lastTime') },
    { key: 'activeCars', dataIndex: 'activeCars', title: t('alarm.fault.activeCars'), align: 'right' },
  ];
  const pagination = (total: number | undefined, current: number | undefined) => ({
    current: current ?? page.current,
    pageSize: page.size,
    total: total ?? 0,
    showSizeChanger: true,
    pageSizeOptions: [10, 30, 50, 100, 200],
    showTotal: (n: number) => t('crud.total', { count: n }),
    onChange: (c: number, size: number) => setPage({ current: size === page.size ? c : 1, size }),
  });
  const empty = { emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> };

  return (
    <Flex vertical gap={12} className="report-page alarm-page">
      <Card variant="borderless" size="small">
        <Flex wrap gap={12} align="center" className="report-filters">
          <OrganisationFilter value={organisation} onChange={setOrganisation} />
          <RangeFilter range={range} />
          <Input
            allowClear
            maxLength={64}
            value={carNo}
            onChange={(e) => setCarNo(e.target.value)}
            onPressEnter={search}
            placeholder={t('alarm.carNo')}
            aria-label={t('alarm.carNo')}
            style={{ width: 160, maxWidth: '100%' }}
          />
          <TreeSelect
            allowClear
            value={picked}
            onChange={(v: string | undefined) => setPicked(v || undefined)}
            treeData={typeTree(tree.data ?? [])}
            treeDefaultExpandAll
            placeholder={t('alarm.fault.typeOrCode')}
            aria-label={t('alarm.fault.typeOrCode')}
            style={{ width: 220, maxWidth: '100%' }}
          />
          <Flex gap={8}>
            <Button type="primary" icon={<SearchOutlined />} onClick={search} disabled={!!range.problem}>
              {t('crud.search')}
            </Button>
            <Button icon={<ReloadOutlined />} onClick={reset}>
              {t('crud.reset')}
            </Button>
          </Flex>
        </Flex>
        <RangeProblem range={range} />
      </Card>
      <Card
        variant="borderless"
        className="crud-card report-card"
        extra={
          <Can code={FAULT_EXPORT}>
            <ExportButton url={FAULTS.export} params={{ ...applied, by }} name={by === 'car' ? 'fault-vehicles' : 'fault-codes'} />
          </Can>
        }
        title={
          <Tabs
            activeKey={by}
            onChange={(k) => {
              setBy(k as By);
              setPage((p) => ({ ...p, current: 1 }));
            }}
            items={[
              { key: 'car', label: t('alarm.fault.byCar') },
              { key: 'type', label: t('alarm.fault.byType') },
            ]}
          />
        }
      >
        {by === 'car' ? (
          <Table<FaultCar>
            rowKey="carId"
            size="middle"
            data-testid="fault-table"
            columns={carColumns}
            dataSource={cars.data?.records ?? []}
            loading={cars.isFetching && (cars.isPlaceholderData || !cars.data)}
            scroll={{ x: 'max-content' }}
            locale={empty}
            pagination={pagination(cars.data?.total, cars.data?.current)}
          />
        ) : (
          <Table<FaultType>
            rowKey="code"
            size="middle"
            data-testid="fault-table"
            columns={typeColumns}
            dataSource={types.data?.records ?? []}
            loading={types.isFetching && (types.isPlaceholderData || !types.data)}
            scroll={{ x: 'max-content' }}
            locale={empty}
            pagination={pagination(types.data?.total, types.data?.current)}
          />
        )}
      </Card>
    </Flex>
  );
}
