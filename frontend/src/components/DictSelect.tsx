import { Select, Tag, type SelectProps } from 'antd';
import { useDict } from './crud/lookups';

/** A select over a dictionary's entries (value = dictKey, label = dictValue). */
export function DictSelect({ code, biz, ...props }: { code: string; biz?: boolean } & Omit<SelectProps, 'options'>) {
  const { data, isLoading } = useDict(code, biz);
  return (
    <Select
      allowClear
      loading={isLoading}
      options={(data ?? []).map((d) => ({ value: String(d.dictKey), label: d.dictValue }))}
      {...props}
    />
  );
}

/** The label of a dictionary value as a tag (the raw value while loading or when unknown). */
export function DictTag({ code, biz, value }: { code: string; biz?: boolean; value: unknown }) {
  const { data } = useDict(code, biz);
  if (value === undefined || value === null || value === '') return null;
  const hit = data?.find((d) => String(d.dictKey) === String(value));
  return <Tag variant="filled">{hit ? hit.dictValue : String(value)}</Tag>;
}
