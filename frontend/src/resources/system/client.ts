import { defineResource } from '../types';

export default defineResource({
  code: 'client',
  title: 'resource.client',
  api: {
    list: '/api/blade-system/client/list',
    detail: '/api/blade-system/client/detail',
    submit: '/api/blade-system/client/submit',
    remove: '/api/blade-system/client/remove',
  },
  paged: true,
  columns: [
    { prop: 'clientId', label: 'client.clientId', search: true, required: true, width: 140 },
    { prop: 'clientSecret', label: 'client.clientSecret', search: true, required: true, width: 160 },
    { prop: 'scope', label: 'client.scope', required: true, defaultValue: 'all', width: 80 },
    {
      prop: 'authorizedGrantTypes',
      label: 'client.authorizedGrantTypes',
      required: true,
      defaultValue: 'refresh_token,password,authorization_code',
      wide: true,
    },
    { prop: 'accessTokenValidity', label: 'client.accessTokenValidity', type: 'number', required: true, min: 0, defaultValue: 3600, width: 120 },
    { prop: 'refreshTokenValidity', label: 'client.refreshTokenValidity', type: 'number', required: true, min: 0, defaultValue: 604800, width: 120 },
    { prop: 'webServerRedirectUri', label: 'client.webServerRedirectUri', hideInTable: true },
    { prop: 'resourceIds', label: 'client.resourceIds', hideInTable: true },
    { prop: 'authorities', label: 'client.authorities', hideInTable: true },
    { prop: 'autoapprove', label: 'client.autoapprove', hideInTable: true },
    { prop: 'additionalInformation', label: 'client.additionalInformation', type: 'textarea', hideInTable: true },
  ],
});
