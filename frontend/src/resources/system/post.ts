import { defineResource } from '../types';

export default defineResource({
  code: 'post',
  resource: 'post',
  title: 'resource.post',
  columns: [
    { prop: 'category', label: 'post.category', search: true, searchParam: 'category', width: 110 },
    { prop: 'postCode', label: 'post.postCode', search: true },
    { prop: 'postName', label: 'post.postName', search: true },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
    { prop: 'remark', label: 'common.remark', type: 'textarea' },
  ],
});
