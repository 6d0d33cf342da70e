import type { ReactNode } from 'react';
import { usePermissions } from '../app/useMenu';

/** Renders its children only when the user holds the button permission `code`. */
export function Can({ code, children, fallback = null }: { code: string; children: ReactNode; fallback?: ReactNode }) {
  const permissions = usePermissions();
  return <>{permissions.has(code) ? children : fallback}</>;
}
