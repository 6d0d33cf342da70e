import { useMemo } from 'react';
import { usePermissions } from './useMenu';
import { useSession } from '../store/session';
import { adminLevel, createAccess, type Access } from './access';

/** The signed-in user's access (see `access.ts`): every button of every page asks it. */
export function useAccess(): Access {
  const granted = usePermissions();
  const { userInfo } = useSession();
  const level = adminLevel(userInfo);
  return useMemo(() => createAccess(granted, level), [granted, level]);
}
