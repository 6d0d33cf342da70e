export const DRIVER_LIST_PATH = '/driver/list';
/** Add or edit a driver with cards, face photo and app account (spec 001 §2). */
export const PILOT_EDIT_PATH = '/add/pilot';
/** View a driver (spec 001 §2). */
export const PILOT_VIEW_PATH = '/locks/lockPilot';
export const DRIVER_APPLY_PATH = '/driver/apply';
