import { Card } from 'antd';
import { useTranslation } from 'react-i18next';
import { MessageList } from './MessageList';

/** 消息通知 → 消息中心: the signed-in user's in-site messages, as the bell's drawer shows them. */
export default function MessageCenter() {
  const { t } = useTranslation();
  return (
    <Card variant="borderless" className="crud-card" title={t('message.title')}>
      <MessageList />
    </Card>
  );
}
