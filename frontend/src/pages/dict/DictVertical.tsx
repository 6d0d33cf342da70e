import { useState } from 'react';
import { Empty } from 'antd';
import { useTranslation } from 'react-i18next';
import { CrudPage } from '../../components/CrudPage';
import { dict } from '../../resources/system/dict';
import type { Row } from '../../resources/types';

/** Roots on the left (parent-list, paged); the children of the selected root on the right (child-list). */
export default function DictVertical() {
  const { t } = useTranslation();
  const [root, setRoot] = useState<Row | null>(null);
  return (
    <div className="page dict-vertical">
      <div className="dict-vertical-left">
        <CrudPage
          config={dict.roots}
          compact
          title={t('dict.roots')}
          onRowClick={setRoot}
          activeRowId={root ? String(root.id) : undefined}
          fixedValues={{ parentId: '0', dictKey: '-1' }}
        />
      </div>
      <div className="dict-vertical-right">
        <CrudPage
          key={root ? String(root.id) : 'none'}
          config={dict.children}
          compact
          title={root ? `${t('dict.children')} · ${String(root.dictValue ?? '')} (${String(root.code ?? '')})` : t('dict.children')}
          fixedParams={root ? { parentId: String(root.id) } : undefined}
          fixedValues={root ? { parentId: String(root.id), code: String(root.code ?? '') } : undefined}
          placeholder={root ? undefined : <Empty description={t('dict.pickRoot')} />}
        />
      </div>
    </div>
  );
}
