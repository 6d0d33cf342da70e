import { memo, use, useEffect, useState } from 'react';
import { Badge, Button, Drawer, Grid, Tooltip } from 'antd';
import { BellOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { LiveHubContext } from '../../live/context';
import { BADGE_MAX, COUNT_KEY, COUNT_REFRESH_MS, unreadCount } from './api';
import { MessageList } from './MessageList';

/**
 * The top bar's bell: the signed-in user's unread in-site messages (a badge, "99+" past 99), read again every minute
 * and after every change made in the list; a click opens the message centre in a drawer. While the live socket is open
 * (a page with live data opened it; the bell does not open it by itself), a new alarm it brings reads the count again
 * a moment later (the alarm's messages are written just after it is published), at most once per `ALARM_DELAY_MS`.
 */
const ALARM_DELAY_MS = 2_000;

/** Reads the count again after the live feed brought new alarms (without opening the socket itself). */
function useAlarmRefresh() {
  const hub = use(LiveHubContext);
  const client = useQueryClient();
  useEffect(() => {
    if (!hub) return undefined;
    let seen = hub.getSnapshot().events;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = hub.subscribe(() => {
      const events = hub.getSnapshot().events;
      if (events === seen) return;
      seen = events;
      timer ??= setTimeout(() => {
        timer = undefined;
        void client.invalidateQueries({ queryKey: COUNT_KEY });
      }, ALARM_DELAY_MS);
    });
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, [hub, client]);
}

/**
 * `centrePath`: the message centre's page the drawer links to (its menu page, else /zmess/index: every user's).
 * Memoised: rendered again only when its props change (not with every render of the top bar).
 */
export const MessageBell = memo(function MessageBell({ centrePath }: { centrePath: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const phone = !Grid.useBreakpoint().md;
  const [open, setOpen] = useState(false);
  useAlarmRefresh();
  const count = useQuery({ queryKey: COUNT_KEY, queryFn: unreadCount, refetchInterval: COUNT_REFRESH_MS });
  const unread = typeof count.data === 'number' ? count.data : 0;

  return (
    <>
      <Tooltip title={t('message.bell')}>
        <Badge count={unread} overflowCount={BADGE_MAX} size="small" offset={[-6, 6]}>
          <Button
            type="text"
            className="top-icon message-bell"
            icon={<BellOutlined />}
            onClick={() => setOpen(true)}
            aria-label={t('message.bellCount', { count: unread })}
            data-unread={unread}
          />
        </Badge>
      </Tooltip>
      <Drawer
        className="message-drawer"
        title={t('message.title')}
        open={open}
        onClose={() => setOpen(false)}
        size={phone ? '100%' : 720}
        extra={
          <Button
            type="link"
            onClick={() => {
              setOpen(false);
              void navigate(centrePath);
            }}
          >
            {t('message.openCentre')}
          </Button>
        }
        destroyOnHidden
      >
        <MessageList compact />
      </Drawer>
    </>
  );
});
