import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, List, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useAccess } from '../../access/useAccess';
import { apiPost } from '../../api/client';
import type { components } from '../../api/schema';
import { REMINDER_PATH } from '../../resources/driver/reminder';
import { daysTone } from '../../components/paper/paper';

type Reminder = components['schemas']['DriverReminderOut'];
const LATEST = 5;

/** 首页 → 证件到期提醒: the open reminders due soonest, linking to the list (for who may read reminders). */
export function HomeReminders() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { can } = useAccess();
  const allowed = can('driver_reminder_view');
  const list = useQuery({
    queryKey: ['crud', 'driver_reminder', 'home'],
    queryFn: () =>
      apiPost('/api/blade-fics/fics/driverExpirationReminder/page', {
        remindState_equal: 0,
        current: 1,
        size: LATEST,
        ascs: 'expire_date',
      }),
    enabled: allowed,
    refetchInterval: 300_000,
  });
  if (!allowed) return null;
  return (
    <Card
      variant="borderless"
      size="small"
      className="home-card"
      data-testid="home-reminders"
      title={`${t('reminder.home.title')}${list.data ? ` (${list.data.total})` : ''}`}
      extra={
        <Button type="link" size="small" onClick={() => void navigate(REMINDER_PATH)}>
          {t('reminder.home.more')}
        </Button>
      }
    >
      <List<Reminder>
        size="small"
        loading={list.isLoading}
        dataSource={list.data?.records ?? []}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('reminder.home.empty')} /> }}
        renderItem={(r) => {
          const tone = daysTone(r.daysLeft);
          return (
            <List.Item className="home-reminder">
              <Tag color={r.remindType === 2 ? 'error' : 'warning'}>{t(`reminder.type.t${r.remindType ?? 1}`)}</Tag>
              <span className="home-reminder-name">{r.driverName}</span>
              <span className="home-reminder-paper">{r.paperId ? r.paperNumber : t('reminder.licence')}</span>
              <Typography.Text type={tone === 'error' ? 'danger' : 'warning'}>
                {(r.daysLeft ?? 0) < 0 ? t('reminder.overdue', { days: -(r.daysLeft ?? 0) }) : t('reminder.days', { days: r.daysLeft ?? 0 })}
              </Typography.Text>
            </List.Item>
          );
        }}
      />
    </Card>
  );
}
