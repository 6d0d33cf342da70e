import { useQuery } from '@tanstack/react-query';
import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../api/client';

/** `lon,lat` to 4 decimals (about 11 m): the server caches by it, and so does the page. */
function locationOf(lat: number, lon: number): string {
  return `${lon.toFixed(4)},${lat.toFixed(4)}`;
}

/** The place at a position (`common/getAddress`: the server's offline geocoder or its configured provider), asked
 * once per place for the page's life; the coordinates while it is asked or when it cannot be. */
export function Address({ lat, lon }: { lat: number | null | undefined; lon: number | null | undefined }) {
  const { t } = useTranslation();
  const known = typeof lat === 'number' && typeof lon === 'number';
  const location = known ? locationOf(lat, lon) : '';
  const place = useQuery({
    queryKey: ['address', location],
    queryFn: () => apiGet('/api/blade-fics-report/fics/common/getAddress', { location }, { silent: true }),
    enabled: known,
    staleTime: Infinity,
    gcTime: 3_600_000,
    retry: false,
  });
  if (!known) return <span>-</span>;
  const coordinates = `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
  const found = place.data;
  if (!found) return <span data-testid="address">{coordinates}</span>;
  const near = found.source === 'offline' && found.distanceKm ? t('address.near', { km: found.distanceKm.toFixed(1) }) : '';
  return (
    <Tooltip title={`${coordinates}${near ? ` · ${near}` : ''}`}>
      <span data-testid="address" data-source={found.source}>
        {found.formattedAddress}
      </span>
    </Tooltip>
  );
}
