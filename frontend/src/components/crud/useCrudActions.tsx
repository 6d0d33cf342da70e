import { App, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { useCustom, useRemove } from '../../data/hooks';
import type { CallRowAction, ResourceConfig, Row } from '../../resources/types';
import { namesToConfirm } from './names';

/**
 * The confirmed calls of a list: deleting rows (the confirmation names them by the resource's label field) and a
 * row's own calls (`CallRowAction`), through the data provider; the resource's lists refresh after.
 */
export function useCrudActions(config: ResourceConfig, afterDelete: () => void) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const remove = useRemove(config);
  const custom = useCustom(config.code);

  const confirmDelete = (rows: Row[]) => {
    if (!config.api.remove) return;
    if (rows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    const { names, more } = namesToConfirm(config, rows);
    modal.confirm({
      title: t('crud.deleteConfirm'),
      content: (
        <Typography.Paragraph style={{ marginBottom: 0 }} data-testid="delete-names">
          {t('crud.deleteNames', { title: t(config.title), names: names.join('、') })}
          {more > 0 ? ` ${t('crud.deleteMore', { count: more })}` : ''}
        </Typography.Paragraph>
      ),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await remove.mutateAsync(rows.map((r) => String(r.id)));
        toast.success(t('crud.deleted'));
        afterDelete();
      },
    });
  };

  const runCall = (a: CallRowAction, row: Row) => {
    modal.confirm({
      title: t(a.confirm, row as Record<string, unknown>),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: a.danger ?? false },
      onOk: async () => {
        let data: unknown;
        try {
          data = await custom.mutateAsync({ path: a.path, method: 'POST', params: a.params(row) });
        } catch (e) {
          // the server's refusal (e.g. an object storage that cannot be reached) has been shown by the request
          if (e instanceof ApiError) return;
          throw e;
        }
        toast.success(t(a.done));
        if (a.result) modal.info({ title: t(a.done), content: a.result(data, row), okText: t('common.confirm') });
      },
    });
  };

  return { confirmDelete, runCall };
}
