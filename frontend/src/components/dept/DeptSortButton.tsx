import { lazy, Suspense, useState } from 'react';
import { Button } from 'antd';
import { OrderedListOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import type { Row, ToolbarExtraProps } from '../../resources/types';

const DeptSort = lazy(() => import('./DeptSort'));

/**
 * 同级排序 on 机构管理's toolbar: orders the level of the one selected organisation (its siblings and itself), or the
 * top level when none is selected. For users who may edit organisations.
 */
export function DeptSortButton({ selectedRows, reload, clearSelection }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const access = useAccess();
  const [row, setRow] = useState<Row | null>(null);
  if (!access.canDo('dept', 'edit')) return null;

  const start = () => {
    if (selectedRows.length > 1) {
      toast.warning(t('dept.sortOne'));
      return;
    }
    setRow(selectedRows[0] ?? { parentId: '0' });
  };

  return (
    <>
      <Button icon={<OrderedListOutlined />} title={t('dept.sortHint')} onClick={start}>
        {t('dept.sort')}
      </Button>
      {row && (
        <Suspense fallback={null}>
          <DeptSort
            row={row}
            onClose={() => setRow(null)}
            reload={() => {
              clearSelection();
              reload();
            }}
          />
        </Suspense>
      )}
    </>
  );
}
