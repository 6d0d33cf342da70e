import { defineResource } from '../types';

export default defineResource({
  code: 'client',
  resource: 'client',
  title: 'resource.client',
  columns: [
    { prop: 'clientId', label: 'client.clientId', search: true, width: 140 },
    { prop: 'clientSecret', label: 'client.clientSecret', width: 160, secret: true },
    { prop: 'scope', label: 'client.scope', width: 80 },
    {
      prop: 'authorizedGrantTypes',
      label: 'client.authorizedGrantTypes',
      // a new client of the web app signs in with passwords and codes (the server's own default has `captcha`)
      defaultValue: 'refresh_token,password,authorization_code',
      wide: true,
    },
    { prop: 'accessTokenValidity', label: 'client.accessTokenValidity', width: 120 },
    { prop: 'refreshTokenValidity', label: 'client.refreshTokenValidity', width: 120 },
    { prop: 'webServerRedirectUri', label: 'client.webServerRedirectUri', hideInTable: true },
    { prop: 'resourceIds', label: 'client.resourceIds', hideInTable: true },
    { prop: 'authorities', label: 'client.authorities', hideInTable: true },
    { prop: 'autoapprove', label: 'client.autoapprove', hideInTable: true },
    { prop: 'additionalInformation', label: 'client.additionalInformation', type: 'textarea', hideInTable: true },
  ],
});
