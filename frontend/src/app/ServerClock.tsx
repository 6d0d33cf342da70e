import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tooltip } from 'antd';
import { ClockCircleOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { getIpOffset } from '../api/menu';
import { clockSkew, formatZoned, offsetLabel } from './serverTime';

/** Server time in the tenant's zone, refreshed every second (sidebar footer). */
export function ServerClock({ collapsed }: { collapsed: boolean }) {
  const { t } = useTranslation();
  const { data } = useQuery({
    queryKey: ['server-time'],
    queryFn: async () => {
      const sent = Date.now();
      const answer = await getIpOffset();
      // assume the server read its clock half-way through the round trip
      const received = Date.now();
      return { skew: clockSkew(answer.timestamp, (sent + received) / 2), offset: answer.offset };
    },
    staleTime: 10 * 60_000,
    refetchInterval: 10 * 60_000,
  });
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!data) return null;
  const { date, time } = formatZoned(now + data.skew, data.offset);
  const title = `${t('shell.serverTime')} ${date} ${time} (${offsetLabel(data.offset)})`;
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
        {t('shell.serverTime')} · {offsetLabel(data.offset)}
      </div>
      <div className="server-clock-time">{time}</div>
      <div className="server-clock-date">{date}</div>
    </div>
  );
}
