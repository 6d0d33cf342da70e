import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Form,
  Input,
  InputNumber,
  Radio,
  Result,
  Select,
  Space,
  Spin,
  Switch,
  Transfer,
  Typography,
  type TransferProps,
} from 'antd';
import { AimOutlined, CheckOutlined, ClearOutlined, CloseOutlined, EditOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { operation } from '../../api/manifest';
import { toast } from '../../api/toast';
import { usePermissions } from '../../access/useMenu';
import { useAccess } from '../../access/useAccess';
import { closeTab, tabsStore } from '../../store/tabs';
import { FieldInput } from '../../components/crud/fields';
import type { Column } from '../../resources/types';
import { alarmModeOptions, FENCE_EDITOR_PATH, FENCE_LIST_PATH, fenceTypeOptions } from '../../resources/operation/fence';
import MapView from '../../map/MapView';
import { FitBounds } from '../../map/FitBounds';
import { PointsLayer, type MapPoint } from '../../map/PointsLayer';
import { boundsOf, type LonLat } from '../../map/geo';
import { ShapeLayer, type ShapeLayerHandle } from '../../map/ShapeLayer';
import type { DrawState } from '../../map/draw';
import { shapeBounds, type Shape } from '../../map/shape';
import { getFence, getFenceVehicles, getVehiclePositions, saveFence } from './api';
import {
  fencePayload,
  formValuesOf,
  kindOfType,
  LIMITS,
  needsSpeedLimit,
  shapeOfFence,
  shapeProblem,
  type Fence,
  type FenceFormValues,
  type Problem,
} from '../../components/fence/fence';

const MECHANISM: Column = { prop: 'mechanismId', label: 'fence.mechanism', type: 'tree', treeUrl: operation('dept', 'tree') };

/** Closes the editor's tab and shows the list (which refetches: its queries were invalidated). */
function useBackToList() {
  const navigate = useNavigate();
  return () => {
    tabsStore.set(closeTab(tabsStore.get(), FENCE_EDITOR_PATH));
    void navigate(FENCE_LIST_PATH);
  };
}

/** `/adds/addOperating` (spec 001 §2): add a fence, or edit the one of `?id=`. */
export default function FenceEditor() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? undefined;
  const permissions = usePermissions();
  const access = useAccess();
  const back = useBackToList();
  const fence = useQuery({ queryKey: ['fence', id], queryFn: () => getFence(id!), enabled: !!id, staleTime: 0, gcTime: 0 });

  // Buttons load with the shell; until then (or for a user without any) the server has the last word.
  if ((access.admin || permissions.size > 0) && !access.canDo('fence', id ? 'edit' : 'add')) {
    return <Result status="403" title={t('fence.forbidden')} extra={<Button onClick={back}>{t('fence.backToList')}</Button>} />;
  }
  if (id && fence.isError) {
    return (
      <Result
        status="error"
        title={t('fence.loadFailed')}
        subTitle={fence.error instanceof Error ? fence.error.message : undefined}
        extra={
          <Space>
            <Button type="primary" onClick={() => void fence.refetch()}>
              {t('fence.retry')}
            </Button>
            <Button onClick={back}>{t('fence.backToList')}</Button>
          </Space>
        }
      />
    );
  }
  if (id && !fence.data) {
    return (
      <div className="page-loading">
        <Spin size="large" />
      </div>
    );
  }
  // a new key per record: the form starts from that record's values
  return <FenceForm key={id ?? 'new'} fence={fence.data ?? null} />;
}

function FenceForm({ fence }: { fence: Fence | null }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const queryClient = useQueryClient();
  const back = useBackToList();
  const [form] = Form.useForm<FenceFormValues>();
  const layer = useRef<ShapeLayerHandle>(null);
  const id = fence?.id ? String(fence.id) : undefined;

  const initialValues = useMemo(() => formValuesOf(fence ?? {}), [fence]);
  const initialShape = useMemo(() => (fence ? shapeOfFence(fence) : null), [fence]);
  const [shape, setShape] = useState<Shape | null>(initialShape);
  const [drawState, setDrawState] = useState<DrawState>('idle');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [carIds, setCarIds] = useState<string[]>(() => (fence?.carIds ?? []).map(String));
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const fenceType = Form.useWatch('fenceType', form) ?? initialValues.fenceType;
  const alarmMode = Form.useWatch('alarmMode', form) ?? initialValues.alarmMode;
  const kind = kindOfType(fenceType);
  // the map opens on the stored fence, or for a new one on where the vehicles are
  const [fenceFit] = useState(() => (initialShape ? shapeBounds(initialShape) : null));
  // read once per editor: the map is not to move while someone draws
  const positions = useQuery({
    queryKey: ['fence-vehicle-positions'],
    queryFn: getVehiclePositions,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const points = useMemo<MapPoint[]>(
    () =>
      (positions.data ?? []).flatMap((v) =>
        v.lat != null && v.lon != null ? [{ id: String(v.carId), position: [v.lon, v.lat] as LonLat, label: v.carNo }] : [],
      ),
    [positions.data],
  );
  const fit = useMemo(
    () => fenceFit ?? (points.length ? boundsOf(points.map((p) => p.position)) : null),
    [fenceFit, points],
  );

  const vehicles = useQuery({ queryKey: ['fence-vehicles', id ?? ''], queryFn: () => getFenceVehicles(id), staleTime: 0 });
  const transferData = useMemo(
    () =>
      (vehicles.data ?? []).map((v) => ({
        key: String(v.carId),
        title: v.deviceNumber ? `${v.carNo ?? v.carId} (${v.deviceNumber})` : String(v.carNo ?? v.carId),
      })),
    [vehicles.data],
  );

  // A reload or a closed window would lose the changes: the browser asks first.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const changeShape = (next: Shape | null) => {
    setShape(next);
    setDirty(true);
    setProblem(null);
  };

  const onTypeChange = (nextType: unknown) => {
    const nextKind = kindOfType(nextType);
    if (drawState === 'drawing') layer.current?.start(nextKind);
    else if (shape && shape.kind !== nextKind) layer.current?.clear();
    setProblem(null);
  };

  const setRadius = (value: number | null) => {
    if (shape?.kind !== 'circle' || value === null) return;
    changeShape({ ...shape, radius: value });
  };

  const finishPolygon = () => {
    if (!layer.current?.finish()) setProblem({ key: 'fence.error.tooFewVertices', values: { min: LIMITS.verticesMin, count: 0 } });
  };

  const save = async () => {
    let values: FenceFormValues;
    try {
      values = await form.validateFields();
    } catch {
      return; // the form shows what is missing
    }
    if (drawState === 'drawing') {
      setProblem({ key: 'fence.error.unfinished' });
      return;
    }
    const wrong = shapeProblem(shape, values.fenceType);
    if (wrong || !shape) {
      setProblem(wrong);
      toast.warning(t(wrong?.key ?? 'fence.error.drawCircle', wrong?.values));
      return;
    }
    setSaving(true);
    try {
      await saveFence(fencePayload(values, shape, carIds, id));
      toast.success(t('crud.saved'));
      setDirty(false);
      await queryClient.invalidateQueries({ queryKey: ['crud', 'fence'] });
      back();
    } catch {
      // the toast shows the server's message; the page stays for a correction
    } finally {
      setSaving(false);
    }
  };

  const cancel = () => {
    if (!dirty) {
      back();
      return;
    }
    modal.confirm({
      title: t('fence.leaveConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: back,
    });
  };

  const filterVehicle: TransferProps['filterOption'] = (input, item) =>
    String(item.title ?? '')
      .toLowerCase()
      .includes(input.trim().toLowerCase());

  const hint =
    drawState === 'drawing'
      ? t(kind === 'circle' ? 'fence.hint.drawCircle' : 'fence.hint.drawPolygon', { max: LIMITS.verticesMax })
      : drawState === 'editing'
        ? t(shape?.kind === 'circle' ? 'fence.hint.editCircle' : 'fence.hint.editPolygon')
        : shape
          ? t('fence.hint.drawn')
          : t(kind === 'circle' ? 'fence.hint.startCircle' : 'fence.hint.startPolygon');

  return (
    <div className="page fence-editor">
      <Card
        variant="borderless"
        className="fence-editor-panel"
        title={t(id ? 'fence.editTitle' : 'fence.addTitle')}
        actions={[
          <Space key="actions" className="fence-editor-actions">
            <Button onClick={cancel}>{t('common.cancel')}</Button>
            <Button type="primary" icon={<SaveOutlined />} loading={saving} onClick={() => void save()}>
              {t('common.save')}
            </Button>
          </Space>,
        ]}
      >
        <Form<FenceFormValues>
          form={form}
          layout="vertical"
          initialValues={initialValues}
          onValuesChange={() => setDirty(true)}
          requiredMark
          className="fence-form"
        >
          <Form.Item
            name="name"
            label={t('fence.name')}
            validateTrigger={['onChange', 'onBlur']}
            rules={[
              { required: true, whitespace: true, message: t('crud.pleaseEnter', { label: t('fence.name') }) },
              { max: LIMITS.nameMax, message: t('fence.error.nameTooLong', { max: LIMITS.nameMax }) },
            ]}
          >
            <Input maxLength={LIMITS.nameMax} showCount placeholder={t('crud.inputPlaceholder', { label: t('fence.name') })} />
          </Form.Item>
          <Form.Item name="fenceType" label={t('fence.fenceType')} rules={[{ required: true }]}>
            <Radio.Group
              optionType="button"
              buttonStyle="solid"
              onChange={(e) => onTypeChange(e.target.value)}
              options={fenceTypeOptions.map((o) => ({ value: o.value, label: t(o.label) }))}
            />
          </Form.Item>
          <Form.Item
            name="alarmMode"
            label={t('fence.alarmModeLabel')}
            rules={[{ required: true, message: t('crud.pleaseSelect', { label: t('fence.alarmModeLabel') }) }]}
          >
            <Select
              aria-label={t('fence.alarmModeLabel')}
              options={alarmModeOptions.map((o) => ({ value: o.value, label: t(o.label) }))}
            />
          </Form.Item>
          {needsSpeedLimit(alarmMode) && (
            <Form.Item
              name="speedLimit"
              label={t('fence.speedLimitKmh')}
              extra={t('fence.speedLimitHelp', { min: LIMITS.speedMin, max: LIMITS.speedMax })}
              validateTrigger={['onChange', 'onBlur']}
              rules={[
                { required: true, message: t('fence.error.speedRequired') },
                {
                  type: 'number',
                  min: LIMITS.speedMin,
                  max: LIMITS.speedMax,
                  message: t('fence.error.speedRange', { min: LIMITS.speedMin, max: LIMITS.speedMax }),
                },
              ]}
            >
              <InputNumber
                aria-label={t('fence.speedLimitKmh')}
                min={LIMITS.speedMin}
                max={LIMITS.speedMax}
                precision={0}
                suffix="km/h"
                style={{ width: '100%' }}
              />
            </Form.Item>
          )}
          <Form.Item name="enableStatus" label={t('fence.enableStatus')} valuePropName="checked">
            <Switch aria-label={t('fence.enableStatus')} checkedChildren={t('fence.enabled')} unCheckedChildren={t('fence.disabled')} />
          </Form.Item>
          <Form.Item name="mechanismId" label={t('fence.mechanism')}>
            <FieldInput column={MECHANISM} />
          </Form.Item>

          <Form.Item label={t('fence.shape')} required className="fence-shape-item">
            {shape?.kind === 'circle' ? (
              <div className="fence-shape-summary">
                <Typography.Text type="secondary" data-testid="fence-center">
                  {t('fence.center', { lon: shape.center[0].toFixed(6), lat: shape.center[1].toFixed(6) })}
                </Typography.Text>
                <InputNumber
                  aria-label={t('fence.radius')}
                  value={shape.radius}
                  min={LIMITS.radiusMin}
                  max={LIMITS.radiusMax}
                  precision={0}
                  step={10}
                  prefix={t('fence.radius')}
                  suffix={t('fence.metres')}
                  style={{ width: '100%' }}
                  onChange={(v) => setRadius(typeof v === 'number' ? v : null)}
                />
              </div>
            ) : shape?.kind === 'polygon' ? (
              <Typography.Text type="secondary" data-testid="fence-vertices">
                {t('fence.vertices', { count: shape.points.length, max: LIMITS.verticesMax })}
              </Typography.Text>
            ) : (
              <Typography.Text type="secondary">{t('fence.noShape')}</Typography.Text>
            )}
            {problem && <Alert className="fence-problem" type="error" showIcon title={t(problem.key, problem.values)} />}
          </Form.Item>

          <Form.Item name="remark" label={t('common.remark')}>
            <Input.TextArea rows={2} maxLength={LIMITS.remarkMax} showCount aria-label={t('common.remark')} />
          </Form.Item>
          <Form.Item label={t('fence.vehicles')}>
            <Transfer
              className="fence-transfer"
              dataSource={transferData}
              targetKeys={carIds}
              onChange={(keys) => {
                setCarIds(keys.map(String));
                setDirty(true);
              }}
              render={(item) => item.title}
              showSearch={{ placeholder: t('fence.searchVehicle') }}
              filterOption={filterVehicle}
              titles={[t('fence.unbound'), t('fence.bound')]}
              locale={{ notFoundContent: vehicles.isLoading ? t('fence.loading') : t('crud.empty') }}
              styles={{ section: { width: '100%', height: 260 } }}
            />
          </Form.Item>
        </Form>
      </Card>

      <div className="fence-editor-map">
        <MapView>
          <ShapeLayer ref={layer} shape={shape} onChange={changeShape} onState={setDrawState} />
          <PointsLayer points={points} />
          <FitBounds bounds={fit} />
          {/* inside the map: it shows once the map (and so the drawing layer) is ready */}
          <div className="fence-map-toolbar">
            <Space wrap>
              {drawState === 'drawing' ? (
                <>
                  {kind === 'polygon' && (
                    <Button type="primary" icon={<CheckOutlined />} onClick={finishPolygon}>
                      {t('fence.finish')}
                    </Button>
                  )}
                  <Button icon={<CloseOutlined />} onClick={() => layer.current?.cancel()}>
                    {t('fence.cancelDrawing')}
                  </Button>
                </>
              ) : (
                <>
                  <Button type={shape ? 'default' : 'primary'} icon={<AimOutlined />} onClick={() => layer.current?.start(kind)}>
                    {t(shape ? 'fence.redraw' : kind === 'circle' ? 'fence.drawCircle' : 'fence.drawPolygon')}
                  </Button>
                  {shape &&
                    (drawState === 'editing' ? (
                      <Button icon={<CheckOutlined />} onClick={() => layer.current?.cancel()}>
                        {t('fence.doneEditing')}
                      </Button>
                    ) : (
                      <Button icon={<EditOutlined />} onClick={() => layer.current?.edit()}>
                        {t('fence.editShape')}
                      </Button>
                    ))}
                  {shape && (
                    <Button danger icon={<ClearOutlined />} onClick={() => layer.current?.clear()}>
                      {t('fence.clearShape')}
                    </Button>
                  )}
                </>
              )}
            </Space>
            <div className="fence-map-hint" data-testid="fence-hint">
              {hint}
            </div>
          </div>
        </MapView>
      </div>
    </div>
  );
}
