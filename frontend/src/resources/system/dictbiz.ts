import { dictResources } from './dict';

export const dictbiz = dictResources('dictbiz', '/api/blade-system/dict-biz');
export default dictbiz.tree;
