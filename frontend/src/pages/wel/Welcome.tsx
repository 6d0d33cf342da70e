import { useMemo } from 'react';
import { useNavigate, useOutletContext } from 'react-router';
import { Avatar, Card, Col, Descriptions, Empty, Row, Typography } from 'antd';
import { UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { operation } from '../../api/manifest';
import { get } from '../../api/request';
import type { MenuVO, TreeNode } from '../../api/types';
import { roleNames } from '../../app/roles';
import { greetingKey } from '../../app/serverTime';
import { useServerClock } from '../../app/useServerClock';
import { useSession } from '../../store/session';
import { leafMenus, menuLabel, openMenu } from '../../app/menuUtil';
import { menuIcon } from '../../app/menuIcons';
import { resolvePage } from '../../resources';

export default function Welcome() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { userInfo } = useSession();
  const { menus } = useOutletContext<{ menus: MenuVO[] }>();
  const shortcuts = useMemo(() => leafMenus(menus).filter((m) => resolvePage(m.path)).slice(0, 12), [menus]);
  // the hour of the tenant's zone, as the server's clock gives it (not the browser's zone)
  const clock = useServerClock();
  const greeting = clock.known ? t(greetingKey(clock.now(), clock.offset)) : t('wel.hello');
  // the roles' names, from the role list when the user may read it (silently: else the seeded names)
  const roleTree = useQuery({
    queryKey: ['role-names'],
    queryFn: () => get<TreeNode[]>(operation('role', 'tree'), undefined, { silent: true }),
    retry: false,
    staleTime: 5 * 60_000,
  });
  const roles = roleNames(userInfo?.role_id, userInfo?.role_name, roleTree.data, t).join(', ');
  const name = userInfo?.real_name || userInfo?.nick_name || userInfo?.user_name || '';

  return (
    <div className="page wel-page">
      <Card variant="borderless" className="wel-hero">
        <div className="wel-hero-inner">
          <Avatar size={64} src={userInfo?.avatar || undefined} icon={<UserOutlined />} />
          <div>
            <Typography.Title level={3} style={{ margin: 0 }}>
              {greeting}, {name}
            </Typography.Title>
            <Typography.Text type="secondary">{t('wel.subtitle')}</Typography.Text>
          </div>
        </div>
      </Card>
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        <Col xs={24} lg={16}>
          <Card title={t('wel.shortcuts')} variant="borderless">
            {shortcuts.length === 0 ? (
              <Empty description={t('wel.noShortcuts')} />
            ) : (
              <div className="shortcut-grid">
                {shortcuts.map((m) => (
                  <button type="button" key={m.id} className="shortcut" onClick={() => openMenu(m, (to) => void navigate(to))}>
                    <span className="shortcut-icon">{menuIcon(m.code, m.source, true)}</span>
                    <span className="shortcut-label">{menuLabel(t, m)}</span>
                  </button>
                ))}
              </div>
            )}
          </Card>
        </Col>
        <Col xs={24} lg={8}>
          <Card title={t('wel.account')} variant="borderless">
            <Descriptions
              column={1}
              size="small"
              items={[
                { key: 'account', label: t('wel.accountName'), children: userInfo?.account || userInfo?.user_name || '-' },
                { key: 'tenant', label: t('wel.tenant'), children: userInfo?.tenant_id || '-' },
                { key: 'role', label: t('wel.roles'), children: roles || '-' },
              ]}
            />
          </Card>
        </Col>
      </Row>
    </div>
  );
}
