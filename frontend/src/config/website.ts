/**
 * A site plan (an image of the yard, say) laid on the map under the vehicles, its corners given in WGS-84: the plan
 * of a plant whose network reaches no tile server, or detail the basemap lacks.
 */
export interface SitePlan {
  /** The image (PNG, JPEG), from this server or any https one (the content security policy allows both). */
  url: string;
  /** [lon, lat] of the image's top-left corner. */
  topLeft: readonly [number, number];
  /** [lon, lat] of the image's bottom-right corner. */
  bottomRight: readonly [number, number];
  /** 0 (invisible) to 1 (opaque); default 1. */
  opacity?: number;
}

/** Constants of the product (spec §9, Saber `website.js`). */
export const website = {
  title: 'Liftdesk',
  clientId: 'saber',
  clientSecret: 'saber_secret',
  tenantMode: true,
  tenantId: '000000',
  /** Seconds after which the access token is refreshed. */
  tokenTime: 3000,
  /** How often the token age is checked, in ms. */
  tokenCheckInterval: 10_000,
  tokenHeader: 'Blade-Auth',
  requestTimeout: 30_000,
  lockPage: '/lock',
  lockDelay: 100,
  homePath: '/wel/index',
  pageSizes: [10, 30, 50, 100, 200],
  defaultPageSize: 10,
  unreadMax: 99,
  storagePrefix: 'saber-',
  dateTimeFormat: 'YYYY-MM-DD HH:mm:ss',
  dateFormat: 'YYYY-MM-DD',
  /**
   * Maps: the default basemap (a tenant's own setting comes first), where a map opens with nothing to show, and the
   * basemaps.
   */
  map: {
    basemap: 'osm',
    center: [116.397, 39.909] as const,
    zoom: 11,
    basemaps: {
      osm: {
        name: 'OpenStreetMap',
        tiles: ['https://tile.openstreetmap.org/{z}/{x}/{y}.png'],
        tileSize: 256,
        maxzoom: 19,
        attribution: '© OpenStreetMap contributors',
        crs: 'WGS84',
      },
    },
    /**
     * The site plan drawn under the vehicles on every map, or null. Each tenant sets its own basemap (a tile URL
     * template) and site plan (an uploaded image and its two corners) on 运营设置 → 地图设置
     * (`/api/liftdesk/map/setting`); every map reads that setting (`map/context.ts` `useTenantMap`), and these
     * constants (`basemap`, `basemaps`, `siteplan`) are only the default of a tenant that has set nothing.
     */
    siteplan: null as SitePlan | null,
  },
} as const;

export type Language = 'zh' | 'en';
