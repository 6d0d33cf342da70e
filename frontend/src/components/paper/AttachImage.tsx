import { useEffect, useMemo } from 'react';
import { Image, Spin } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { attachBlob } from './api';

/** A picture kept as an attachment of the tenant's store, fetched with the session's token, previewable. */
export function AttachImage({ id, alt, size = 96 }: { id: string; alt: string; size?: number }) {
  const blob = useQuery({ queryKey: ['attach-image', id], queryFn: () => attachBlob(id), staleTime: Infinity });
  const url = useMemo(() => (blob.data ? URL.createObjectURL(blob.data) : undefined), [blob.data]);
  useEffect(() => (url ? () => URL.revokeObjectURL(url) : undefined), [url]);
  if (!url) return <Spin spinning={blob.isLoading} style={{ width: size, height: size }} />;
  return <Image src={url} alt={alt} width={size} height={size} style={{ objectFit: 'cover', borderRadius: 6 }} />;
}
