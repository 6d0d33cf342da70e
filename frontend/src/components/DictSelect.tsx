import { Select, Tag, type SelectProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { dictLabel } from '../i18n/dictLabel';
import { useDictOptions } from './crud/lookups';

/** A select over a dictionary's entries (value = dictKey, label = dictValue in the UI language). */
export function DictSelect({ code, biz, ...props }: { code: string; biz?: boolean } & Omit<SelectProps, 'options'>) {
  const { options, isLoading } = useDictOptions(code, biz);
  return <Select allowClear loading={isLoading} options={options} {...props} />;
}

/** The label of a dictionary value as a tag (the raw value while loading or when unknown). */
export function DictTag({ code, biz, value }: { code: string; biz?: boolean; value: unknown }) {
  const { t } = useTranslation();
  const { options } = useDictOptions(code, biz);
  if (value === undefined || value === null || value === '') return null;
  const hit = options.find((o) => o.value === String(value));
  return <Tag variant="filled">{hit ? hit.label : dictLabel(t, code, value, String(value))}</Tag>;
}
