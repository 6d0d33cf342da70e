import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../api/manifest';
import { adminLevel, buttonOfPermission, createAccess } from './access';

describe('access', () => {
  it('lets a user use the buttons granted, and an administrator every button, as the server does', () => {
    const granted = new Set(['vehicle_add', 'vehicle_view']);
    const user = createAccess(granted, '');
    expect(user.admin).toBe(false);
    expect(user.can('vehicle_add')).toBe(true);
    expect(user.canDo('vehicle', 'edit')).toBe(false);
    for (const level of ['platform', 'tenant'] as const) {
      const admin = createAccess(new Set(), level);
      expect(admin.admin).toBe(true);
      expect(admin.canDo('fence', 'delete')).toBe(true);
      expect(admin.can('command_log_cancel')).toBe(true);
    }
  });

  it('reads the level from the token and nothing else', () => {
    expect(adminLevel({ admin_level: 'platform' })).toBe('platform');
    expect(adminLevel({ admin_level: 'tenant' })).toBe('tenant');
    // a role alias is no level: rights come from the signed claim
    expect(adminLevel({ admin_level: 'administrator' })).toBe('');
    expect(adminLevel(null)).toBe('');
  });

  it('names the button of a manifest action', () => {
    expect(buttonOfPermission('the button fence_edit')).toBe('fence_edit');
    expect(buttonOfPermission('one of the menus fence')).toBeUndefined();
    expect(buttonOfPermission('every signed-in user')).toBeUndefined();
    const bind = MANIFEST.fence.actions.find((a) => a.kind === 'bind');
    expect(buttonOfPermission(bind?.permission)).toBe('fence_edit');
  });
});
