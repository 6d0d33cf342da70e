import { dictResources } from './dict';

export const dictbiz = dictResources('dictbiz', 'dict_biz');
export default dictbiz.tree;
