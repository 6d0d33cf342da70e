import type { CSSProperties } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { mechanismOptions, mechanismsQuery } from './mechanisms';

export interface MechanismSelectProps {
  value?: string;
  onChange: (value: string | undefined) => void;
  placeholder?: string;
  'aria-label'?: string;
  style?: CSSProperties;
}

/**
 * An organisation (mechanism) select box: the organisations the caller may see in the tree's order, indented by
 * depth, searched by their path ("root / child / leaf").
 */
export function MechanismSelect({ value, onChange, ...rest }: MechanismSelectProps) {
  const { data, isLoading } = useQuery(mechanismsQuery());
  return (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'path' }}
      loading={isLoading}
      options={mechanismOptions(data)}
      optionRender={(option) => (
        <span title={option.data.path} style={{ paddingInlineStart: option.data.depth * 16 }} data-testid="mechanism-option">
          {option.data.label}
        </span>
      )}
      value={value}
      onChange={(v: string | undefined) => onChange(v || undefined)}
      popupMatchSelectWidth={false}
      styles={{ popup: { root: { maxHeight: 400, minWidth: 220 } } }}
      {...rest}
    />
  );
}
