import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Card, DatePicker, Descriptions, Form, Input, Spin } from 'antd';
import { UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { apiGet, apiPost } from '../../api/client';
import { toast } from '../../api/toast';
import { DictSelect } from '../../components/DictSelect';
import { website } from '../../config/website';
import { sessionStore } from '../../store/session';
import { setStore } from '../../store/storage';
import { mobileProblem } from './rules';

interface ProfileForm {
  name: string;
  realName: string;
  phone: string;
  email?: string;
  avatar?: string;
  sex?: string;
  birthday?: Dayjs | null;
}

const QUERY_KEY = ['user', 'info'];

/**
 * 个人信息 (/info/index, the avatar menu): the signed-in user's own profile (`info` / `update-info`). What they may
 * change: nickname, real name (2-5 characters), mobile number, email, avatar URL, sex, birthday; their account,
 * roles, organisations and posts are shown, and changed by an administrator only.
 */
export default function InfoPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [form] = Form.useForm<ProfileForm>();
  const [saving, setSaving] = useState(false);
  const info = useQuery({ queryKey: QUERY_KEY, queryFn: () => apiGet('/api/blade-user/info') });
  const avatar = Form.useWatch('avatar', form);

  useEffect(() => {
    const d = info.data;
    if (!d) return;
    form.setFieldsValue({
      name: d.name ?? '',
      realName: d.realName ?? '',
      phone: d.phone ?? '',
      email: d.email ?? '',
      avatar: d.avatar ?? '',
      sex: d.sex === null || d.sex === undefined ? undefined : String(d.sex),
      birthday: d.birthday ? dayjs(d.birthday) : null,
    });
  }, [info.data, form]);

  const submit = async (v: ProfileForm) => {
    setSaving(true);
    try {
      const saved = await apiPost('/api/blade-user/update-info', {
        name: v.name.trim(),
        realName: v.realName.trim(),
        phone: v.phone.trim(),
        email: v.email?.trim() || null,
        avatar: v.avatar?.trim() || null,
        sex: v.sex === undefined || v.sex === null || v.sex === '' ? null : Number(v.sex),
        birthday: v.birthday ? v.birthday.startOf('day').format(website.dateTimeFormat) : null,
      });
      client.setQueryData(QUERY_KEY, saved);
      // the top bar shows the name and avatar of the stored user info
      const current = sessionStore.get().userInfo;
      if (current && saved) {
        const next = { ...current, real_name: saved.realName ?? '', nick_name: saved.name ?? '', avatar: saved.avatar ?? '' };
        setStore('userInfo', next);
        sessionStore.set((prev) => ({ ...prev, userInfo: next }));
      }
      toast.success(t('userInfo.saved'));
    } catch {
      // the request wrapper showed the server's message
    } finally {
      setSaving(false);
    }
  };

  const d = info.data;
  return (
    <Card title={t('userInfo.title')} className="page-card">
      <Spin spinning={info.isLoading}>
        <div className="info-page">
          <Descriptions column={1} size="small" style={{ maxWidth: 480, marginBottom: 16 }} bordered>
            <Descriptions.Item label={t('user.account')}>{d?.account ?? '-'}</Descriptions.Item>
            <Descriptions.Item label={t('user.roleId')}>{d?.roleName || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('user.deptId')}>{d?.deptName || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('user.postId')}>{d?.postName || '-'}</Descriptions.Item>
          </Descriptions>
          <Form<ProfileForm> form={form} layout="vertical" style={{ maxWidth: 480 }} onFinish={(v) => void submit(v)} aria-label={t('userInfo.title')}>
            <Form.Item label={t('userInfo.avatar')} name="avatar" extra={t('userInfo.avatarHelp')}
              rules={[{ pattern: /^(https?:\/\/|\/)/, message: t('userInfo.avatarRule') }]}>
              <Input prefix={<Avatar size={20} src={avatar || undefined} icon={<UserOutlined />} />} maxLength={500} allowClear />
            </Form.Item>
            <Form.Item label={t('user.name')} name="name" rules={[{ required: true, whitespace: true, message: t('userInfo.nameRequired') }]}>
              <Input maxLength={20} />
            </Form.Item>
            <Form.Item
              label={t('user.realName')}
              name="realName"
              rules={[
                { required: true, whitespace: true, message: t('userInfo.realNameRule') },
                { validator: (_r, value: string | undefined) => { const n = (value ?? '').trim().length; return !n || (n >= 2 && n <= 5) ? Promise.resolve() : Promise.reject(new Error(t('userInfo.realNameRule'))); } },
              ]}
            >
              <Input maxLength={20} />
            </Form.Item>
            <Form.Item
              label={t('user.phone')}
              name="phone"
              required
              rules={[
                {
                  validator: (_r, value: string | undefined) => {
                    const problem = mobileProblem(value);
                    return problem ? Promise.reject(new Error(t(`userInfo.mobile.${problem}`))) : Promise.resolve();
                  },
                },
              ]}
            >
              <Input maxLength={20} inputMode="tel" />
            </Form.Item>
            <Form.Item label={t('user.email')} name="email" rules={[{ type: 'email', message: t('userInfo.emailRule') }]}>
              <Input maxLength={45} />
            </Form.Item>
            <Form.Item label={t('user.sex')} name="sex">
              <DictSelect code="sex" />
            </Form.Item>
            <Form.Item label={t('user.birthday')} name="birthday">
              <DatePicker format={website.dateFormat} style={{ width: '100%' }} />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={saving}>
              {t('common.save')}
            </Button>
          </Form>
        </div>
      </Spin>
    </Card>
  );
}
