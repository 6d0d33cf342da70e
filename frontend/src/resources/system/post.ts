import { defineResource } from '../types';

export default defineResource({
  code: 'post',
  title: 'resource.post',
  api: {
    list: '/api/blade-system/post/list',
    detail: '/api/blade-system/post/detail',
    submit: '/api/blade-system/post/submit',
    remove: '/api/blade-system/post/remove',
  },
  paged: true,
  columns: [
    { prop: 'category', label: 'post.category', type: 'dict', dictCode: 'post_category', valueType: 'number', search: true, searchParam: 'category', width: 110 },
    { prop: 'postCode', label: 'post.postCode', search: true, required: true },
    { prop: 'postName', label: 'post.postName', search: true, required: true },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 80, defaultValue: 1 },
    { prop: 'remark', label: 'common.remark', type: 'textarea' },
  ],
});
