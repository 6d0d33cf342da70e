import { useEffect, useState } from 'react';
import { Image, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { faceImage } from '../../components/driver/api';

/** A stored face photo, fetched with the session's token (its attachment link cannot be a plain <img src>). */
export function FaceImage({ link, size = 120 }: { link: string; size?: number }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let made: string | null = null;
    let live = true;
    faceImage(link)
      .then((blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => setUrl(null));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [link]);
  if (!url) return <Spin />;
  return <Image src={url} width={size} height={size} style={{ objectFit: 'cover' }} alt={t('driver.facePhoto')} data-testid="face-image" />;
}
