import type { ReactNode } from 'react';
import { useAccess } from '../access/useAccess';

/** Renders its children only when the user may use the button `code` (administrators may: see `useAccess`). */
export function Can({ code, children, fallback = null }: { code: string; children: ReactNode; fallback?: ReactNode }) {
  const { can } = useAccess();
  return <>{can(code) ? children : fallback}</>;
}
