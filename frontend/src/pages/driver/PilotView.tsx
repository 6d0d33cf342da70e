import { Suspense, lazy, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Empty, Flex, Space, Spin, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { useAccess } from '../../access/useAccess';
import { bindingCalls } from '../../api/manifest';
import { remoteQuery } from '../../components/crud/lookups';
import { CARD_LEVELS, VERIFY_MODES, sexOptions } from '../../resources/driver/driver';
import { DRIVER_LIST_PATH, PILOT_EDIT_PATH, PILOT_VIEW_PATH } from '../../resources/driver/paths';
import type { Row } from '../../resources/types';
import { closeTab, tabsStore } from '../../store/tabs';
import { getDriverFull, type CardOut } from '../../components/driver/api';
import { FaceImage } from './FaceImage';

const DriverVehicles = lazy(() => import('../../components/driver/DriverVehicles'));
const LIMIT = bindingCalls('driver', 'vehicle').limit;

function useLabels(remote: typeof CARD_LEVELS): Map<string, string> {
  const { data } = useQuery(remoteQuery(remote));
  return new Map((data ?? []).map((r: Row) => [String(r.dictKey), String(r.dictValue)]));
}

const text = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));
const day = (value: unknown) => (typeof value === 'string' && value ? value.slice(0, 10) : '-');

/** `/locks/lockPilot` (spec 001 §2): one driver — person, licence, cards, face, app account and authorized vehicles. */
export default function PilotView() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { canDo } = useAccess();
  const id = params.get('id') ?? '';
  const [authorizing, setAuthorizing] = useState(false);
  const query = useQuery({ queryKey: ['crud', 'driver', 'full', id], queryFn: () => getDriverFull(id), enabled: !!id });
  const levels = useLabels(CARD_LEVELS);
  const modes = useLabels(VERIFY_MODES);
  const d = query.data;

  const back = () => {
    tabsStore.set(closeTab(tabsStore.get(), PILOT_VIEW_PATH));
    void navigate(DRIVER_LIST_PATH);
  };

  if (!id || query.isError) return <Empty style={{ margin: 48 }} />;
  if (!d) return <Spin style={{ display: 'block', margin: 48 }} />;
  const cards: (CardOut & { kind: string })[] = [
    ...(d.mainCard ? [{ ...d.mainCard, kind: t('driver.mainCard') }] : []),
    ...(d.subCards ?? []).map((c) => ({ ...c, kind: t('driver.subCards') })),
  ];
  const sex = sexOptions.find((o) => o.value === d.sex);
  const expired = d.licenseState === 'expired';

  return (
    <div className="pilot-view" data-testid="pilot-view">
      <Card
        variant="borderless"
        title={
          <Space>
            {t('driver.viewTitle')}: {d.name}
            {d.blacklisted === 1 && <Tag color="error">{t('driver.onBlacklist')}</Tag>}
          </Space>
        }
        extra={
          <Space wrap>
            {canDo('driver', 'edit') && (
              <Button onClick={() => void navigate(`${PILOT_EDIT_PATH}?id=${encodeURIComponent(id)}`)}>{t('crud.edit')}</Button>
            )}
            {canDo('driver', 'auth') && <Button onClick={() => setAuthorizing(true)}>{t('driver.authorize')}</Button>}
            <Button onClick={back}>{t('driver.back')}</Button>
          </Space>
        }
      >
        <Flex gap={24} wrap align="start">
          <div style={{ flex: '1 1 480px', minWidth: 0 }}>
            <Descriptions title={t('driver.person')} size="small" bordered column={{ xs: 1, sm: 2, lg: 3 }}>
              <Descriptions.Item label={t('driver.name')}>{d.name}</Descriptions.Item>
              <Descriptions.Item label={t('driver.phone')}>{d.phone}</Descriptions.Item>
              <Descriptions.Item label={t('driver.sex')}>{sex ? t(sex.label) : '-'}</Descriptions.Item>
              <Descriptions.Item label={t('driver.jobNumber')}>{text(d.jobNumber)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.workType')}>{text(d.workTypeName)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.position')}>{text(d.position)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.mechanism')}>{text(d.mechanismName)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.entryDate')}>{day(d.entryDate)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.emergencyPhone')}>{text(d.emergencyPhone)}</Descriptions.Item>
              {d.blacklisted === 1 && <Descriptions.Item label={t('driver.blacklistReason')}>{text(d.blacklistReason)}</Descriptions.Item>}
            </Descriptions>
            <Descriptions title={t('driver.license')} size="small" bordered column={{ xs: 1, sm: 2 }} style={{ marginTop: 16 }}>
              <Descriptions.Item label={t('driver.licenseNumber')}>{text(d.licenseNumber)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.licenseType')}>{text(d.licenseType)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.licenseIssueDate')}>{day(d.licenseIssueDate)}</Descriptions.Item>
              <Descriptions.Item label={t('driver.licenseValidUntil')}>
                <Space>
                  {day(d.licenseValidUntil)}
                  {d.licenseState && <Tag color={expired ? 'error' : 'success'}>{t(expired ? 'driver.licenseExpired' : 'driver.licenseValid')}</Tag>}
                </Space>
              </Descriptions.Item>
            </Descriptions>
          </div>
          <Space orientation="vertical" size="small" style={{ flex: '0 0 200px' }}>
            <Typography.Text strong>{t('driver.face')}</Typography.Text>
            {d.facePhoto ? <FaceImage link={d.facePhoto} size={160} /> : <Typography.Text type="secondary">{t('driver.noFace')}</Typography.Text>}
            {d.facePhoto && <Tag>{t(d.faceIssued ? 'driver.faceIssued' : 'driver.faceNotIssued')}</Tag>}
            <Typography.Text strong style={{ marginTop: 12 }}>
              {t('driver.account')}
            </Typography.Text>
            <Typography.Text data-testid="app-account">{d.appAccount ?? t('driver.noAccount')}</Typography.Text>
            {d.appAccount && d.hasAppPassword && <Tag color="success">{t('driver.hasAppPassword')}</Tag>}
          </Space>
        </Flex>

        <Typography.Title level={5} style={{ marginTop: 24 }}>
          {t('driver.cards')}
        </Typography.Title>
        <Table
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={cards}
          locale={{ emptyText: t('driver.noCards') }}
          scroll={{ x: 640 }}
          columns={[
            { title: t('driver.mainCard') + ' / ' + t('driver.subCards'), dataIndex: 'kind', width: 120 },
            { title: t('driver.cardNumber'), dataIndex: 'cardNumber' },
            { title: t('driver.serialNumber'), dataIndex: 'serialNumber' },
            { title: t('driver.cardLevel'), dataIndex: 'cardLevel', render: (v: unknown) => levels.get(String(v)) ?? '-' },
            { title: t('driver.verifyMode'), dataIndex: 'verifyMode', render: (v: unknown) => modes.get(String(v)) ?? '-' },
            { title: t('driver.cardPassword'), dataIndex: 'password', render: (v: unknown) => (v ? String(v) : '-') },
          ]}
        />

        <Typography.Title level={5} style={{ marginTop: 24 }}>
          {t('driver.cars')} ({d.carCount}
          {LIMIT ? ` / ${LIMIT}` : ''})
        </Typography.Title>
        <Table
          size="small"
          rowKey="id"
          data-testid="pilot-cars"
          pagination={{ pageSize: 10, hideOnSinglePage: true }}
          dataSource={d.cars ?? []}
          locale={{ emptyText: t('driver.noCars') }}
          scroll={{ x: 560 }}
          columns={[
            { title: t('driver.carNo'), dataIndex: 'carNo' },
            { title: t('driver.deviceNumber'), dataIndex: 'deviceNumber', render: text },
            { title: t('driver.carType'), dataIndex: 'carTypeName', render: text },
            { title: t('driver.mechanism'), dataIndex: 'mechanismName', render: text },
          ]}
        />
      </Card>
      {authorizing && (
        <Suspense fallback={null}>
          <DriverVehicles
            row={d as unknown as Row}
            onClose={() => setAuthorizing(false)}
            reload={() => void client.invalidateQueries({ queryKey: ['crud', 'driver'] })}
          />
        </Suspense>
      )}
    </div>
  );
}
