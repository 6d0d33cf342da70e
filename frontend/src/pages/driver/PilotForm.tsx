import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, DatePicker, Flex, Form, Image, Input, InputNumber, Row as GridRow, Space, Spin, Typography, Upload } from 'antd';
import { DeleteOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { FieldInput } from '../../components/crud/fields';
import { website } from '../../config/website';
import { invalidateResource } from '../../data/hooks';
import driverConfig, { CARD_LEVELS, VERIFY_MODES, phoneRules } from '../../resources/driver/driver';
import { DRIVER_LIST_PATH, PILOT_EDIT_PATH } from '../../resources/driver/paths';
import type { Column } from '../../resources/types';
import { closeTab, tabsStore } from '../../store/tabs';
import { deleteFace, getDriverFull, saveDriver, uploadFace, type CardOut, type DriverBody } from '../../components/driver/api';
import { cardPayload, cardProblem, checkFace, type CardValues } from './pilot';
import { FaceImage } from './FaceImage';

const MASK = '******';
const column = (prop: string): Column => {
  const found = driverConfig.columns.find((c) => c.prop === prop);
  if (!found) throw new Error(`no column ${prop}`);
  return found;
};
const LEVEL: Column = { prop: 'cardLevel', label: 'driver.cardLevel', type: 'select', remote: CARD_LEVELS };
const VERIFY: Column = { prop: 'verifyMode', label: 'driver.verifyMode', type: 'select', remote: VERIFY_MODES };
const DATES = ['entryDate', 'medicalDate', 'licenseIssueDate', 'licenseValidUntil'] as const;
const TEXTS = ['name', 'phone', 'jobNumber', 'position', 'homeAddress', 'hometown', 'emergencyPhone', 'licenseNumber', 'licenseType', 'appAccount', 'remark'] as const;

interface FormValues extends Record<string, unknown> {
  mainCard?: CardValues;
  subCards?: CardValues[];
  appPassword?: string;
}

function cardValues(card: CardOut | null | undefined): CardValues | undefined {
  if (!card) return undefined;
  return {
    id: card.id,
    cardNumber: card.cardNumber,
    serialNumber: card.serialNumber,
    cardLevel: card.cardLevel === null || card.cardLevel === undefined ? undefined : String(card.cardLevel),
    verifyMode: card.verifyMode === null || card.verifyMode === undefined ? undefined : String(card.verifyMode),
    hasPassword: card.password === MASK,
  };
}

function dateText(value: unknown): string | null {
  return dayjs.isDayjs(value) ? (value as Dayjs).format(`${website.dateFormat} 00:00:00`) : null;
}

const numberOf = (value: unknown) => (value === undefined || value === null || value === '' ? null : Number(value));

/** `/add/pilot` (spec 001 §2): add a driver, or edit the one of `?id=`, with licence, cards, face photo and app account. */
export default function PilotForm() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const id = params.get('id') ?? undefined;
  const [form] = Form.useForm<FormValues>();
  const [face, setFace] = useState<{ file: File; url: string } | null>(null);
  const [dropFace, setDropFace] = useState(false);
  const [saving, setSaving] = useState(false);
  const existing = useQuery({ queryKey: ['crud', 'driver', 'full', id], queryFn: () => getDriverFull(id ?? ''), enabled: !!id });
  const driver = existing.data;

  useEffect(() => {
    if (!driver) return;
    const values: FormValues = {};
    for (const name of TEXTS) values[name] = driver[name] ?? undefined;
    for (const name of DATES) values[name] = driver[name] ? dayjs(driver[name]) : undefined;
    values.sex = String(driver.sex ?? 0);
    values.age = driver.age ?? undefined;
    values.workType = driver.workType === null || driver.workType === undefined ? undefined : String(driver.workType);
    values.mechanismId = driver.mechanismId ?? undefined;
    values.mainCard = cardValues(driver.mainCard);
    values.subCards = (driver.subCards ?? []).map((c) => cardValues(c) ?? {});
    form.setFieldsValue(values);
  }, [driver, form]);

  useEffect(
    () => () => {
      if (face) URL.revokeObjectURL(face.url);
    },
    [face],
  );

  const back = () => {
    tabsStore.set(closeTab(tabsStore.get(), PILOT_EDIT_PATH));
    void navigate(DRIVER_LIST_PATH);
  };

  const pickFace = (file: File) => {
    const problem = checkFace(file);
    if (problem) {
      toast.warning(t(problem));
      return false;
    }
    setFace({ file, url: URL.createObjectURL(file) });
    setDropFace(false);
    return false; // kept here until the driver is saved
  };

  const save = async () => {
    // every value the form holds, the cards' ids and stored-password marks too (not fields of their own)
    const values = form.getFieldsValue(true) as FormValues;
    // the spec's card rules, before the call (the server checks them again)
    const problem = [cardProblem(values.mainCard, 1), ...(values.subCards ?? []).map((c) => cardProblem(c, 2))].find((p) => p !== null);
    if (problem) {
      modal.warning({ title: t(problem), okText: t('common.confirm') });
      return;
    }
    const body: Record<string, unknown> = {};
    for (const name of TEXTS) body[name] = typeof values[name] === 'string' && values[name] !== '' ? values[name] : null;
    for (const name of DATES) body[name] = dateText(values[name]);
    body.sex = numberOf(values.sex) ?? 0;
    body.age = numberOf(values.age);
    body.workType = numberOf(values.workType);
    body.mechanismId = values.mechanismId ?? null;
    body.mainCard = cardPayload(values.mainCard, 1);
    body.subCards = (values.subCards ?? []).map((c) => cardPayload(c, 2)).filter((c) => c !== null);
    if (values.appPassword) body.appPassword = values.appPassword;
    setSaving(true);
    try {
      const saved = await saveDriver({ ...(body as DriverBody), id: id ?? null });
      const ident = String(saved.id);
      if (face) await uploadFace(ident, face.file, face.file.name);
      else if (dropFace && driver?.facePhoto) await deleteFace(ident);
      toast.success(t('driver.saved'));
      await invalidateResource(client, 'driver');
      back();
    } catch (e) {
      // the server's refusal (a serial in use, a rule) was shown by the request; the form keeps what was typed
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setSaving(false);
    }
  };

  if (id && existing.isLoading) return <Spin style={{ display: 'block', margin: 48 }} />;
  const shownFace = face?.url;
  const storedFace = !face && !dropFace ? driver?.facePhoto : null;
  const keepPassword = !!driver?.hasAppPassword;

  const cardFields = (prefix: (string | number)[], kind: 1 | 2, hasPassword: boolean) => (
    <GridRow gutter={12}>
      <Col xs={24} md={6}>
        <Form.Item name={[...prefix, 'cardNumber']} label={t('driver.cardNumber')} rules={[{ max: 32 }]}>
          <Input maxLength={32} />
        </Form.Item>
      </Col>
      <Col xs={24} md={6}>
        <Form.Item name={[...prefix, 'serialNumber']} label={t('driver.serialNumber')} rules={[{ pattern: /^\d{10}$/, message: t('driver.serialRule') }]}>
          <Input maxLength={10} inputMode="numeric" />
        </Form.Item>
      </Col>
      <Col xs={12} md={4}>
        <Form.Item name={[...prefix, 'cardLevel']} label={t('driver.cardLevel')} rules={kind === 2 ? [{ required: true, message: t('crud.pleaseSelect', { label: t('driver.cardLevel') }) }] : []}>
          <FieldInput column={LEVEL} />
        </Form.Item>
      </Col>
      <Col xs={12} md={4}>
        <Form.Item name={[...prefix, 'verifyMode']} label={t('driver.verifyMode')}>
          <FieldInput column={VERIFY} />
        </Form.Item>
      </Col>
      <Col xs={24} md={4}>
        <Form.Item
          name={[...prefix, 'password']}
          label={t('driver.cardPassword')}
          extra={hasPassword ? t('driver.appPasswordKeep') : undefined}
          rules={[{ pattern: /^\d{4,16}$/, message: t('driver.passwordRule') }]}
        >
          <Input.Password maxLength={16} inputMode="numeric" autoComplete="new-password" />
        </Form.Item>
      </Col>
    </GridRow>
  );

  return (
    <div className="pilot-form" data-testid="pilot-form">
      <Form form={form} layout="vertical" onFinish={() => void save()} initialValues={{ sex: '0', subCards: [] }} scrollToFirstError>
        <Card title={t(id ? 'driver.editTitle' : 'driver.addTitle')} variant="borderless" extra={<Button onClick={back}>{t('driver.back')}</Button>}>
          <Typography.Title level={5}>{t('driver.person')}</Typography.Title>
          <GridRow gutter={12}>
            <Col xs={24} md={6}>
              <Form.Item name="name" label={t('driver.name')} rules={[{ required: true, whitespace: true, message: t('crud.pleaseEnter', { label: t('driver.name') }) }, { max: 32 }]}>
                <Input maxLength={32} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item
                name="phone"
                label={t('driver.phone')}
                rules={[{ required: true, whitespace: true, message: t('driver.phoneEmpty') }, ...phoneRules.map((r) => (typeof r === 'object' && typeof r.message === 'string' ? { ...r, message: t(r.message) } : r))]}
              >
                <Input maxLength={20} inputMode="tel" />
              </Form.Item>
            </Col>
            <Col xs={12} md={4}>
              <Form.Item name="sex" label={t('driver.sex')}>
                <FieldInput column={column('sex')} />
              </Form.Item>
            </Col>
            <Col xs={12} md={4}>
              <Form.Item name="age" label={t('driver.age')}>
                <InputNumber min={14} max={100} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
            <Col xs={24} md={4}>
              <Form.Item name="jobNumber" label={t('driver.jobNumber')}>
                <Input maxLength={32} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="workType" label={t('driver.workType')}>
                <FieldInput column={column('workType')} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="position" label={t('driver.position')}>
                <Input maxLength={32} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="mechanismId" label={t('driver.mechanism')}>
                <FieldInput column={column('mechanismId')} />
              </Form.Item>
            </Col>
            <Col xs={12} md={3}>
              <Form.Item name="entryDate" label={t('driver.entryDate')}>
                <DatePicker style={{ width: '100%' }} />
              </Form.Item>
            </Col>
            <Col xs={12} md={3}>
              <Form.Item name="medicalDate" label={t('driver.medicalDate')}>
                <DatePicker style={{ width: '100%' }} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="emergencyPhone" label={t('driver.emergencyPhone')} rules={[{ pattern: /^[0-9+-]{3,20}$/, message: t('crud.patternMismatch', { label: t('driver.emergencyPhone') }) }]}>
                <Input maxLength={20} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="hometown" label={t('driver.hometown')}>
                <Input maxLength={64} />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item name="homeAddress" label={t('driver.homeAddress')}>
                <Input maxLength={128} />
              </Form.Item>
            </Col>
          </GridRow>

          <Typography.Title level={5}>{t('driver.license')}</Typography.Title>
          <GridRow gutter={12}>
            <Col xs={24} md={6}>
              <Form.Item name="licenseNumber" label={t('driver.licenseNumber')}>
                <Input maxLength={32} />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item name="licenseType" label={t('driver.licenseType')}>
                <Input maxLength={32} />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item name="licenseIssueDate" label={t('driver.licenseIssueDate')}>
                <DatePicker style={{ width: '100%' }} />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item name="licenseValidUntil" label={t('driver.licenseValidUntil')}>
                <DatePicker style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </GridRow>

          <Typography.Title level={5}>{t('driver.mainCard')}</Typography.Title>
          {cardFields(['mainCard'], 1, !!driver?.mainCard && driver.mainCard.password === MASK)}

          <Typography.Title level={5}>{t('driver.subCards')}</Typography.Title>
          <Form.List name="subCards">
            {(items, { add, remove }) => (
              <>
                {items.map((item, index) => (
                  <Flex key={item.key} gap={8} align="start" className="pilot-sub-card">
                    <div style={{ flex: 1 }}>{cardFields([item.name], 2, !!driver?.subCards?.[index] && driver.subCards[index].password === MASK)}</div>
                    <Button danger icon={<DeleteOutlined />} aria-label={t('driver.removeCard')} style={{ marginTop: 30 }} onClick={() => remove(item.name)} />
                  </Flex>
                ))}
                <Button icon={<PlusOutlined />} onClick={() => add({})} disabled={items.length >= 10} style={{ marginBottom: 16 }}>
                  {t('driver.addSubCard')}
                </Button>
              </>
            )}
          </Form.List>

          <Typography.Title level={5}>{t('driver.face')}</Typography.Title>
          <Flex gap={16} align="center" wrap style={{ marginBottom: 16 }}>
            {shownFace ? (
              <Image src={shownFace} width={120} height={120} style={{ objectFit: 'cover' }} alt={t('driver.facePhoto')} data-testid="face-preview" />
            ) : storedFace ? (
              <FaceImage link={storedFace} size={120} />
            ) : (
              <Typography.Text type="secondary">{t('driver.noFace')}</Typography.Text>
            )}
            <Space orientation="vertical">
              <Upload accept=".jpg,.jpeg,.png,image/jpeg,image/png" showUploadList={false} beforeUpload={pickFace} maxCount={1}>
                <Button icon={<UploadOutlined />}>{t('driver.chooseFace')}</Button>
              </Upload>
              {(shownFace || storedFace) && (
                <Button
                  danger
                  size="small"
                  onClick={() => {
                    setFace(null);
                    setDropFace(true);
                  }}
                >
                  {t('driver.removeFace')}
                </Button>
              )}
              <Typography.Text type="secondary">{t('driver.faceHelp')}</Typography.Text>
            </Space>
          </Flex>

          <Typography.Title level={5}>{t('driver.account')}</Typography.Title>
          <GridRow gutter={12}>
            <Col xs={24} md={6}>
              <Form.Item name="appAccount" label={t('driver.appAccount')} rules={[{ min: 4, message: t('crud.tooShort', { label: t('driver.appAccount'), min: 4 }) }]}>
                <Input maxLength={32} autoComplete="off" />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item
                name="appPassword"
                label={t('driver.appPassword')}
                extra={keepPassword ? t('driver.appPasswordKeep') : undefined}
                dependencies={['appAccount']}
                rules={[
                  { min: 6, message: t('crud.tooShort', { label: t('driver.appPassword'), min: 6 }) },
                  ({ getFieldValue }) => ({
                    validator: (_r, value: unknown) =>
                      getFieldValue('appAccount') && !value && !keepPassword
                        ? Promise.reject(new Error(t('crud.pleaseEnter', { label: t('driver.appPassword') })))
                        : Promise.resolve(),
                  }),
                ]}
              >
                <Input.Password maxLength={32} autoComplete="new-password" />
              </Form.Item>
            </Col>
          </GridRow>
          <Form.Item name="remark" label={t('driver.remark')}>
            <Input.TextArea rows={2} maxLength={255} showCount />
          </Form.Item>
          <Flex gap={8} justify="end">
            <Button onClick={back}>{t('common.cancel')}</Button>
            <Button type="primary" htmlType="submit" loading={saving}>
              {t('common.save')}
            </Button>
          </Flex>
        </Card>
      </Form>
    </div>
  );
}
