import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Drawer, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RowDialogProps } from '../../resources/types';
import { loanRecords, type PaperLog } from './api';

/** 借出记录: every loan and return of one paper (who, when, organisation, purpose, return date, note). */
export default function LoanRecords({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const [page, setPage] = useState({ current: 1, size: 10 });
  const id = String(row.id);
  const list = useQuery({ queryKey: ['paper-loans', id, page], queryFn: () => loanRecords(id, page.current, page.size) });
  const dash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));
  return (
    <Drawer open title={t('paper.loanRecordsOf', { number: String(row.paperNumber ?? '') })} size={760} onClose={onClose}>
      <Table<PaperLog>
        size="small"
        rowKey="id"
        data-testid="paper-loan-records"
        loading={list.isLoading}
        dataSource={list.data?.records ?? []}
        scroll={{ x: 700 }}
        pagination={{
          current: page.current,
          pageSize: page.size,
          total: list.data?.total ?? 0,
          onChange: (current, size) => setPage({ current, size }),
        }}
        columns={[
          {
            title: t('paper.event'),
            dataIndex: 'event',
            width: 80,
            render: (v: string) => <Tag color={v === 'lend' ? 'orange' : 'green'}>{t(`paper.events.${v}`)}</Tag>,
          },
          { title: t('paper.loanOrg'), dataIndex: 'loanOrg', width: 120, render: dash },
          { title: t('paper.loanPurpose'), dataIndex: 'loanPurpose', width: 120, render: dash },
          { title: t('paper.returnDate'), dataIndex: 'loanReturnDate', width: 110, render: (v: unknown) => dash(v).slice(0, 10) },
          { title: t('paper.certificateNumber'), dataIndex: 'loanCertNumber', width: 160, render: dash },
          { title: t('paper.note'), dataIndex: 'note', width: 140, render: dash },
          { title: t('paper.by'), dataIndex: 'userName', width: 100, render: dash },
          { title: t('paper.when'), dataIndex: 'createTime', width: 160, render: dash },
        ]}
      />
    </Drawer>
  );
}
