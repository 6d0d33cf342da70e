import { memo, useEffect, useState } from 'react';
import { Tooltip } from 'antd';
import { ClockCircleOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { formatZoned, offsetLabel } from '../data/serverTime';
import { useServerClock } from '../data/useServerClock';

/**
 * Server time in the tenant's zone, refreshed every second (sidebar footer).
 * Memoised: rendered again only when its props change (the shell renders as tabs and queries change).
 */
export const ServerClock = memo(function ServerClock({ collapsed }: { collapsed: boolean }) {
  const { t } = useTranslation();
  const clock = useServerClock();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!clock.known) return null;
  const { date, time } = formatZoned(now + clock.skew, clock.offset);
  const title = `${t('shell.serverTime')} ${date} ${time} (${offsetLabel(clock.offset)})`;
  if (collapsed) {
    return (
      <Tooltip title={title} placement="right">
        <div className="server-clock collapsed" aria-label={title}>
          <ClockCircleOutlined />
        </div>
      </Tooltip>
    );
  }
  return (
    <div className="server-clock" title={title} data-testid="server-clock">
      <div className="server-clock-label">
        {t('shell.serverTime')} · {offsetLabel(clock.offset)}
      </div>
      <div className="server-clock-time">{time}</div>
      <div className="server-clock-date">{date}</div>
    </div>
  );
});
