import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Divider, Form, Input, InputNumber, Popconfirm, Result, Row, Slider, Space, Spin, Typography, Upload } from 'antd';
import { AimOutlined, ApiOutlined, DeleteOutlined, ExpandOutlined, SaveOutlined, UploadOutlined } from '@ant-design/icons';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useAccess } from '../../access/useAccess';
import { toast } from '../../api/toast';
import MapView from '../../map/MapView';
import { FitBounds } from '../../map/FitBounds';
import { basemapByName, fromMapCrs, placedPlan, planUrl, templateBasemap, validCorners } from '../../map/basemap';
import { probeTile, type BasemapStatus } from '../../map/basemapHealth';
import { mapSettingQuery, useMapContext } from '../../map/context';
import { webglLayer } from '../../map/webglGate';
import type { LonLat } from '../../map/geo';
import { MAP_SETTING_KEY, MAX_PLAN_BYTES, PLAN_TYPES, removePlan, saveMapSetting, uploadPlan, type MapSetting } from '../../map/api';
import { CORNER_FIELDS, formatSize, inputOf, round6, validTemplate, valuesOf, type MapSettingValues } from './mapSetting';

type Probe = Extract<BasemapStatus, { state: 'ok' } | { state: 'failed' }> | { state: 'testing' };

/** Hands the preview's MapLibre map to the page (for "use the current view" and the tile test); renders nothing. */
const MapHandle = webglLayer(function MapHandle({ onMap }: { onMap: (map: MapLibreMap | null) => void }) {
  const { map } = useMapContext();
  useEffect(() => {
    onMap(map);
    return () => onMap(null);
  }, [map, onMap]);
  return null;
});

function probeText(t: TFunction, probe: Probe, host: string): string {
  if (probe.state === 'testing') return t('mapSetting.testing');
  if (probe.state === 'ok') return t('mapSetting.testOk', { host });
  if (probe.reason === 'timeout') return t('mapSetting.testTimeout', { host: probe.host, seconds: probe.seconds });
  return t('mapSetting.testFailed', { host: probe.host, detail: probe.detail || t('map.basemapUnreachable') });
}

/** 运营设置 → 地图设置 (`/operation/map`): the tenant's basemap and site plan, which every map of the tenant draws. */
export default function MapSettingPage() {
  const { t } = useTranslation();
  const setting = useQuery(mapSettingQuery);
  if (setting.isError) {
    return (
      <Result
        status="error"
        title={t('mapSetting.loadFailed')}
        subTitle={setting.error instanceof Error ? setting.error.message : undefined}
        extra={
          <Button type="primary" onClick={() => void setting.refetch()}>
            {t('mapSetting.retry')}
          </Button>
        }
      />
    );
  }
  if (!setting.data) {
    return (
      <div className="page-loading">
        <Spin size="large" />
      </div>
    );
  }
  return <MapSettingForm setting={setting.data} />;
}

function MapSettingForm({ setting }: { setting: MapSetting }) {
  const { t } = useTranslation();
  const access = useAccess();
  const canEdit = access.canDo('map_setting', 'edit');
  const queryClient = useQueryClient();
  const [form] = Form.useForm<MapSettingValues>();
  const initialValues = useMemo(() => valuesOf(setting), []); // eslint-disable-line react-hooks/exhaustive-deps
  const mapRef = useRef<MapLibreMap | null>(null);
  const [saving, setSaving] = useState(false);
  const [uploading, setUploading] = useState(false);
  const [probe, setProbe] = useState<Probe | null>(null);
  // the template the preview draws: the saved one, then the last one tested successfully
  const [previewTemplate, setPreviewTemplate] = useState(setting.tileUrl);
  // the preview opens on the plan when there is one
  const [fit, setFit] = useState<[LonLat, LonLat] | null>(() =>
    validCorners(setting.planSouth, setting.planWest, setting.planNorth, setting.planEast)
      ? [
          [setting.planWest!, setting.planSouth!],
          [setting.planEast!, setting.planNorth!],
        ]
      : null,
  );

  const values = Form.useWatch([], form) as MapSettingValues | undefined;
  const attribution = Form.useWatch('attribution', form) as string | undefined;
  const maxZoom = Form.useWatch('maxZoom', form) as number | null | undefined;
  const basemap = useMemo(
    () => (previewTemplate ? templateBasemap(previewTemplate, attribution ?? setting.attribution, maxZoom ?? setting.maxZoom) : basemapByName()),
    // the map is rebuilt on a new template only, not on each keystroke of the attribution
    [previewTemplate], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const current = values ?? initialValues;
  const siteplan = setting.hasPlan && setting.planHash ? placedPlan(planUrl(setting.planHash), current, current.planOpacity ?? 0.8) : null;

  const onMap = useMemo(() => (map: MapLibreMap | null) => void (mapRef.current = map), []);

  /** The corners of what the preview shows now (WGS-84). */
  const viewCorners = (): Pick<MapSettingValues, (typeof CORNER_FIELDS)[number]> | null => {
    const map = mapRef.current;
    if (!map) return null;
    const bounds = map.getBounds();
    const [west, south] = fromMapCrs([bounds.getWest(), bounds.getSouth()], basemap.crs);
    const [east, north] = fromMapCrs([bounds.getEast(), bounds.getNorth()], basemap.crs);
    return { planSouth: round6(south), planWest: round6(west), planNorth: round6(north), planEast: round6(east) };
  };

  const takeView = () => {
    const corners = viewCorners();
    if (!corners) return;
    form.setFieldsValue(corners);
    void form.validateFields([...CORNER_FIELDS]);
  };

  const test = async () => {
    try {
      await form.validateFields(['tileUrl']);
    } catch {
      return;
    }
    const template = (form.getFieldValue('tileUrl') as string).trim();
    if (!template) return;
    const map = mapRef.current;
    const center = map?.getCenter();
    const zoom = Math.min(map?.getZoom() ?? 3, (form.getFieldValue('maxZoom') as number | null) ?? 19);
    setProbe({ state: 'testing' });
    const result = await probeTile(template, { at: center ? [center.lng, center.lat] : [0, 0], zoom });
    setProbe(result);
    if (result.state === 'ok') setPreviewTemplate(template);
  };

  const store = (next: MapSetting) => queryClient.setQueryData(MAP_SETTING_KEY, next);

  const save = async () => {
    let values: MapSettingValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setSaving(true);
    try {
      const saved = await saveMapSetting(inputOf(values));
      store(saved);
      setPreviewTemplate(saved.tileUrl);
      toast.success(t('mapSetting.saved'));
    } catch {
      // the request has said why
    } finally {
      setSaving(false);
    }
  };

  const upload = async (file: File) => {
    setUploading(true);
    try {
      const saved = await uploadPlan(file, file.name);
      // a plan without a place yet: where the preview stands, to adjust and save
      const corners = form.getFieldsValue(CORNER_FIELDS as unknown as (keyof MapSettingValues)[]) as Partial<MapSettingValues>;
      if (!validCorners(corners.planSouth, corners.planWest, corners.planNorth, corners.planEast)) {
        const view = viewCorners();
        if (view) form.setFieldsValue(view);
      }
      store(saved);
      toast.success(t('mapSetting.uploaded'));
    } catch {
      // the request has said why
    } finally {
      setUploading(false);
    }
  };

  const remove = async () => {
    try {
      const saved = await removePlan();
      store(saved);
      form.setFieldsValue({ planSouth: null, planWest: null, planNorth: null, planEast: null });
      toast.success(t('mapSetting.removed'));
    } catch {
      // the request has said why
    }
  };

  const cornerRule = (field: (typeof CORNER_FIELDS)[number]) => ({
    validator: async () => {
      const v = form.getFieldsValue(CORNER_FIELDS as unknown as (keyof MapSettingValues)[]) as Partial<MapSettingValues>;
      const given = CORNER_FIELDS.filter((f) => typeof v[f] === 'number');
      if (given.length === 0) return;
      if (given.length < 4) {
        if (typeof v[field] !== 'number') throw new Error(t('mapSetting.cornersRequired'));
        return;
      }
      if (!validCorners(v.planSouth, v.planWest, v.planNorth, v.planEast) && (field === 'planSouth' || field === 'planWest')) {
        throw new Error(t('mapSetting.cornersOrder'));
      }
    },
  });
  const corner = (field: (typeof CORNER_FIELDS)[number], lat: boolean) => (
    <Col xs={12} key={field}>
      <Form.Item
        name={field}
        label={t(`mapSetting.${field}`)}
        dependencies={CORNER_FIELDS.filter((f) => f !== field)}
        rules={[cornerRule(field)]}
      >
        <InputNumber
          aria-label={t(`mapSetting.${field}`)}
          min={lat ? -90 : -180}
          max={lat ? 90 : 180}
          step={0.0001}
          precision={6}
          style={{ width: '100%' }}
          disabled={!canEdit}
        />
      </Form.Item>
    </Col>
  );

  const host = (() => {
    try {
      return new URL(((values?.tileUrl ?? '') as string).replace(/[{}]/g, '')).host;
    } catch {
      return '';
    }
  })();

  return (
    <div className="fence-editor map-setting" data-testid="map-setting">
      <Card
        className="fence-editor-panel"
        title={t('mapSetting.title')}
        actions={[
          <Space key="actions" className="fence-editor-actions">
            <Button type="primary" icon={<SaveOutlined />} loading={saving} disabled={!canEdit} onClick={() => void save()}>
              {t('mapSetting.save')}
            </Button>
          </Space>,
        ]}
      >
        {!canEdit && <Alert type="info" showIcon title={t('mapSetting.readOnly')} style={{ marginBottom: 12 }} />}
        <Form form={form} layout="vertical" className="fence-form" initialValues={initialValues} disabled={!canEdit}>
          <Typography.Title level={5} style={{ marginTop: 0 }}>
            {t('mapSetting.basemap')}
          </Typography.Title>
          <Form.Item label={t('mapSetting.tileUrl')} extra={t('mapSetting.tileUrlHelp')} required={false}>
            <Space.Compact style={{ width: '100%' }}>
              <Form.Item
                name="tileUrl"
                noStyle
                rules={[
                  {
                    validator: async (_, value: string | undefined) => {
                      const v = (value ?? '').trim();
                      if (v && !validTemplate(v)) throw new Error(t('mapSetting.tileUrlInvalid'));
                    },
                  },
                ]}
              >
                <Input
                  aria-label={t('mapSetting.tileUrl')}
                  placeholder="https://tile.openstreetmap.org/{z}/{x}/{y}.png"
                  maxLength={500}
                  allowClear
                  onChange={() => setProbe(null)}
                />
              </Form.Item>
              <Button icon={<ApiOutlined />} onClick={() => void test()} loading={probe?.state === 'testing'} disabled={false}>
                {t('mapSetting.test')}
              </Button>
            </Space.Compact>
          </Form.Item>
          {probe && probe.state !== 'testing' && (
            <Alert
              data-testid="tile-test"
              type={probe.state === 'ok' ? 'success' : 'error'}
              showIcon
              title={probeText(t, probe, host)}
              style={{ marginBottom: 14 }}
            />
          )}
          <Row gutter={12}>
            <Col xs={16}>
              <Form.Item name="attribution" label={t('mapSetting.attribution')}>
                <Input aria-label={t('mapSetting.attribution')} maxLength={200} placeholder="© OpenStreetMap contributors" />
              </Form.Item>
            </Col>
            <Col xs={8}>
              <Form.Item name="maxZoom" label={t('mapSetting.maxZoom')}>
                <InputNumber aria-label={t('mapSetting.maxZoom')} min={1} max={24} precision={0} style={{ width: '100%' }} placeholder="19" />
              </Form.Item>
            </Col>
          </Row>

          <Divider style={{ margin: '4px 0 12px' }} />
          <Typography.Title level={5} style={{ marginTop: 0 }}>
            {t('mapSetting.plan')}
          </Typography.Title>
          <Typography.Paragraph type="secondary" style={{ fontSize: 13 }}>
            {t('mapSetting.planHelp')}
          </Typography.Paragraph>
          <Space wrap style={{ marginBottom: 12 }}>
            <Upload
              accept={PLAN_TYPES.join(',')}
              showUploadList={false}
              disabled={!canEdit}
              beforeUpload={(file) => {
                if (!PLAN_TYPES.includes(file.type)) {
                  toast.error(t('mapSetting.typeInvalid'));
                  return Upload.LIST_IGNORE;
                }
                if (file.size > MAX_PLAN_BYTES) {
                  toast.error(t('mapSetting.tooLarge'));
                  return Upload.LIST_IGNORE;
                }
                void upload(file);
                return false;
              }}
            >
              <Button icon={<UploadOutlined />} loading={uploading} data-testid="plan-upload">
                {t(setting.hasPlan ? 'mapSetting.replace' : 'mapSetting.upload')}
              </Button>
            </Upload>
            {setting.hasPlan && (
              <Popconfirm
                title={t('mapSetting.removeConfirm')}
                okText={t('mapSetting.remove')}
                okButtonProps={{ danger: true }}
                onConfirm={() => remove()}
                disabled={!canEdit}
              >
                <Button danger icon={<DeleteOutlined />}>
                  {t('mapSetting.remove')}
                </Button>
              </Popconfirm>
            )}
          </Space>
          <div style={{ marginBottom: 12 }}>
            <Typography.Text type="secondary" data-testid="plan-info">
              {setting.hasPlan
                ? t('mapSetting.planInfo', { type: (setting.planType ?? '').replace('image/', '').toUpperCase(), size: formatSize(setting.planSize ?? 0) })
                : t('mapSetting.noPlan')}
            </Typography.Text>
          </div>
          <Row gutter={12}>
            {corner('planSouth', true)}
            {corner('planWest', false)}
            {corner('planNorth', true)}
            {corner('planEast', false)}
          </Row>
          <Space wrap style={{ marginBottom: 14 }}>
            <Button icon={<AimOutlined />} onClick={takeView}>
              {t('mapSetting.useView')}
            </Button>
            <Button
              icon={<ExpandOutlined />}
              disabled={!siteplan}
              onClick={() => siteplan && setFit([[siteplan.topLeft[0], siteplan.bottomRight[1]], [siteplan.bottomRight[0], siteplan.topLeft[1]]])}
            >
              {t('mapSetting.fitPlan')}
            </Button>
          </Space>
          <Form.Item name="planOpacity" label={`${t('mapSetting.opacity')} ${Math.round((current.planOpacity ?? 0.8) * 100)}%`}>
            <Slider min={0} max={1} step={0.05} tooltip={{ formatter: (v) => `${Math.round((v ?? 0) * 100)}%` }} aria-label={t('mapSetting.opacity')} />
          </Form.Item>
        </Form>
      </Card>

      <div className="fence-editor-map">
        <MapView basemap={basemap} siteplan={siteplan}>
          <MapHandle onMap={onMap} />
          <FitBounds bounds={fit} padding={32} maxZoom={19} />
          <div className="fence-map-toolbar">
            <div className="fence-map-hint">{t('mapSetting.previewHint')}</div>
          </div>
        </MapView>
      </div>
    </div>
  );
}
