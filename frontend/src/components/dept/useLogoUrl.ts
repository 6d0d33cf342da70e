import { useEffect, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { isOwnLink, logoBlob } from './logo';

/** A logo's picture as the page may show it: our own attachment read with the session's token, another address as it is. */
export function useLogoUrl(link: string | undefined): string | undefined {
  const own = !!link && isOwnLink(link);
  const blob = useQuery({ queryKey: ['logo-blob', link], queryFn: () => logoBlob(link ?? ''), enabled: own, staleTime: Infinity, retry: false });
  const url = useMemo(() => (own && blob.data ? URL.createObjectURL(blob.data) : undefined), [own, blob.data]);
  useEffect(() => (url ? () => URL.revokeObjectURL(url) : undefined), [url]);
  if (!link) return undefined;
  return own ? url : link;
}
