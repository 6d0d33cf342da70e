import { useQuery } from '@tanstack/react-query';
import { Descriptions, Drawer, Empty, Flex, Spin, Tag, Timeline, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RowDialogProps } from '../../resources/types';
import { AttachImage } from './AttachImage';
import { paperView } from './api';
import { AUDIT_COLORS } from './paper';

const dash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));

/** 证件详情: the paper with its holder, states, loan and archive, pictures and history (`paperView`). */
export default function PaperViewDialog({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const id = String(row.paperId ?? row.id);
  const view = useQuery({ queryKey: ['paper-view', id], queryFn: () => paperView(id), staleTime: 0 });
  const p = view.data;
  return (
    <Drawer open title={t('paper.viewTitle')} size={720} onClose={onClose}>
      <Spin spinning={view.isLoading}>
        {p && (
          <div data-testid="paper-view">
            <Descriptions column={2} size="small" bordered>
              <Descriptions.Item label={t('paper.driver')}>{dash(p.driverName)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.paperNumber')}>{p.paperNumber}</Descriptions.Item>
              <Descriptions.Item label={t('paper.paperType')}>{t(`paper.type.t${p.paperType ?? 5}`)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.issuingAuthority')}>{dash(p.issuingAuthority)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.firstReceiveDate')}>{dash(p.firstReceiveDate).slice(0, 10)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.validUntil')}>{dash(p.validUntil).slice(0, 10)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.auditStatus')}>
                <Tag color={AUDIT_COLORS[p.auditStatus ?? 0]}>{t(`paper.audit.s${p.auditStatus ?? 0}`)}</Tag>
              </Descriptions.Item>
              <Descriptions.Item label={t('paper.auditNote')}>{dash(p.auditNote)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.loanStatus')}>{t(`paper.loan.s${p.loanStatus ?? 0}`)}</Descriptions.Item>
              <Descriptions.Item label={t('paper.archiveStatus')}>{t(`paper.archive.s${p.archiveStatus ?? 0}`)}</Descriptions.Item>
              {p.loanStatus === 1 && (
                <>
                  <Descriptions.Item label={t('paper.loanOrg')}>{dash(p.loanOrg)}</Descriptions.Item>
                  <Descriptions.Item label={t('paper.returnDate')}>{dash(p.loanReturnDate).slice(0, 10)}</Descriptions.Item>
                </>
              )}
              {p.archiveStatus === 1 && (
                <>
                  <Descriptions.Item label={t('paper.archivePlace')}>{dash(p.archivePlace)}</Descriptions.Item>
                  <Descriptions.Item label={t('paper.archiveTime')}>{dash(p.archiveTime)}</Descriptions.Item>
                </>
              )}
            </Descriptions>
            <Typography.Title level={5} style={{ marginTop: 16 }}>
              {t('paper.pictures.label')}
            </Typography.Title>
            {(p.pictures ?? []).length === 0 ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
            ) : (
              <Flex wrap gap={12}>
                {(p.pictures ?? []).map((pic) => (
                  <Flex key={pic.attachId} vertical align="center" gap={4}>
                    <AttachImage id={String(pic.attachId)} alt={pic.originalName ?? ''} size={120} />
                    <Typography.Text type="secondary">{t(`paper.side.s${pic.side ?? 3}`)}</Typography.Text>
                  </Flex>
                ))}
              </Flex>
            )}
            <Typography.Title level={5} style={{ marginTop: 16 }}>
              {t('paper.history')}
            </Typography.Title>
            <Timeline
              items={(p.history ?? []).map((h) => ({
                key: h.id,
                color: h.event === 'fail' ? 'red' : h.event === 'pass' ? 'green' : 'blue',
                content: (
                  <span>
                    <Typography.Text strong>{t(`paper.events.${h.event}`)}</Typography.Text> · {dash(h.createTime)} · {dash(h.userName)}
                    {h.loanOrg ? ` · ${h.loanOrg}` : ''}
                    {h.note ? ` · ${h.note}` : ''}
                  </span>
                ),
              }))}
            />
          </div>
        )}
      </Spin>
    </Drawer>
  );
}
