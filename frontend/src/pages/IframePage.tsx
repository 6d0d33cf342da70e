import { useParams } from 'react-router';

/** Embeds an external menu page (`/myiframe/{routerPath}`, the path URL-encoded). */
export default function IframePage() {
  const { routerPath = '' } = useParams();
  const src = decodeURIComponent(routerPath);
  const safe = /^https?:\/\//i.test(src) || src.startsWith('/');
  return (
    <div className="page" style={{ padding: 0, height: 'calc(100vh - 96px)' }}>
      {safe ? (
        <iframe title={src} src={src} style={{ border: 0, width: '100%', height: '100%' }} />
      ) : null}
    </div>
  );
}
