import { useQuery, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../api/client';

const SHOW_HIDE = '/api/blade-fics/showHide';
const hiddenKey = (tableKey: string) => ['showHide', tableKey] as const;

/**
 * The columns the user hides in one list, kept on the server per user and list (`showHide/find` / `options`), so
 * that the choice follows the user to every browser. A change shows at once and is saved in the background.
 */
export function useHiddenColumns(tableKey: string): [string[], (next: string[]) => void] {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: hiddenKey(tableKey),
    queryFn: async () => (await apiPost(`${SHOW_HIDE}/find`, { tableKey }, { silent: true }))?.hidden ?? NONE,
    staleTime: Infinity,
  });
  const save = (next: string[]) => {
    // A `find` still on its way must not undo the change when it lands (a user may choose before the list's saved
    // choice has arrived): it is cancelled first, then the change shows.
    void client.cancelQueries({ queryKey: hiddenKey(tableKey) }).then(() => client.setQueryData(hiddenKey(tableKey), next));
    apiPost(`${SHOW_HIDE}/options`, { tableKey, hidden: next }).catch(
      () => void client.invalidateQueries({ queryKey: hiddenKey(tableKey) }),
    );
  };
  return [query.data ?? NONE, save];
}

const NONE: string[] = [];
