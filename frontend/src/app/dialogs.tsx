import { App, Button, Form, Input, Modal, Space, Table } from 'antd';
import { CheckOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { setLockPasswd, useCommon } from '../store/common';
import { clearErrorLogs, useErrorLogs, type ErrorLog } from '../store/errorLog';
import { uploadErrorLogs } from '../api/auth';
import { toast } from '../api/toast';
import { THEMES } from '../config/themes';
import { setThemeName } from '../store/common';

export function LockDialog({ open, onCancel, onLocked }: { open: boolean; onCancel: () => void; onLocked: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ passwd: string }>();
  return (
    <Modal
      open={open}
      title={t('lock.setTitle')}
      okText={t('lock.lockNow')}
      cancelText={t('common.cancel')}
      onCancel={onCancel}
      onOk={() => form.submit()}
      destroyOnHidden
      width={420}
    >
      <Form
        form={form}
        layout="vertical"
        preserve={false}
        onFinish={({ passwd }) => {
          setLockPasswd(passwd);
          onLocked();
        }}
      >
        <Form.Item
          name="passwd"
          label={t('lock.password')}
          rules={[{ required: true, whitespace: true, message: t('lock.passwordRequired') }]}
        >
          <Input.Password autoFocus placeholder={t('lock.passwordPlaceholder')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export function ThemeDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { themeName } = useCommon();
  return (
    <Modal open={open} title={t('theme.title')} footer={null} onCancel={onClose} width={640}>
      <div className="theme-grid">
        {THEMES.map((theme) => (
          <button
            type="button"
            key={theme.name}
            className={`theme-swatch${theme.name === themeName ? ' active' : ''}`}
            onClick={() => setThemeName(theme.name)}
            aria-pressed={theme.name === themeName}
          >
            <span className="theme-preview">
              <span className="theme-preview-side" style={{ background: theme.sider }} />
              <span className="theme-preview-main">
                <span className="theme-preview-head" style={{ background: theme.header }} />
                <span className="theme-preview-bar" style={{ background: theme.primary }} />
              </span>
              {theme.name === themeName && <CheckOutlined className="theme-check" style={{ color: theme.primary }} />}
            </span>
            <span className="theme-name">{t(`theme.names.${theme.name}`)}</span>
          </button>
        ))}
      </div>
    </Modal>
  );
}

export function ErrorLogDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const logs = useErrorLogs();
  const upload = () =>
    modal.confirm({
      title: t('errorLog.uploadConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        await uploadErrorLogs(logs);
        toast.success(t('errorLog.sent'));
      },
    });
  const clear = () =>
    modal.confirm({
      title: t('errorLog.clearConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: () => {
        clearErrorLogs();
        toast.success(t('errorLog.cleared'));
      },
    });
  return (
    <Modal
      open={open}
      title={t('errorLog.title')}
      onCancel={onClose}
      width={900}
      footer={
        <Space>
          <Button onClick={clear} disabled={!logs.length}>
            {t('errorLog.clear')}
          </Button>
          <Button type="primary" onClick={upload} disabled={!logs.length}>
            {t('errorLog.upload')}
          </Button>
        </Space>
      }
    >
      <Table<ErrorLog>
        size="small"
        rowKey={(r) => `${r.time}-${r.message}`}
        dataSource={logs}
        pagination={{ pageSize: 8, hideOnSinglePage: true }}
        expandable={{ expandedRowRender: (r) => <pre className="error-stack">{r.stack || r.info || '-'}</pre> }}
        columns={[
          { title: t('errorLog.type'), dataIndex: 'type', width: 140 },
          { title: t('errorLog.message'), dataIndex: 'message', ellipsis: true },
          { title: t('errorLog.url'), dataIndex: 'url', ellipsis: true, width: 220 },
          { title: t('errorLog.time'), dataIndex: 'time', width: 190 },
        ]}
      />
    </Modal>
  );
}
