import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import type * as MapLibre from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { Button, Result } from 'antd';
import { CloseOutlined, WarningOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { useAccess } from '../access/useAccess';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { website, type SitePlan } from '../config/website';
import {
  addBasemap,
  BACKGROUND_LAYER,
  BASEMAP_SOURCE,
  basemapStyle,
  FALLBACK_BACKGROUND,
  gridImage,
  PLAN_PROTOCOL,
  syncSitePlan,
  type Basemap,
} from './basemap';
import { probeTile, tileHost, watchBasemap, type BasemapStatus } from './basemapHealth';
import { PlainCamera, type MapCamera } from './camera';
import { CameraContext, MapContext, planImageBytes, useTenantMap, type CameraContextValue, type MapContextValue } from './context';
import { PlainGrid } from './plainGrid';
import type { LonLat } from './geo';

type MapLibreModule = typeof MapLibre;
let loading: Promise<MapLibreModule> | null = null;

/**
 * MapLibre, loaded the first time a map needs WebGL: a page whose maps draw only in 2D (the monitor without tiles)
 * never parses it. Its worker is Vite's own file (without it GeoJSON layers never draw) and starts in a task of its
 * own; the tenant's site plan image needs the token, which MapLibre's own requests would not send:
 * `liftdeskplan://<hash>` is loaded by the app (once per image) and handed to MapLibre as bytes.
 */
function loadMapLibre(): Promise<MapLibreModule> {
  loading ??= import('maplibre-gl').then(
    (maplibregl) => {
      maplibregl.setWorkerUrl(workerUrl);
      setTimeout(() => maplibregl.prewarm(), 0);
      maplibregl.addProtocol(PLAN_PROTOCOL, async (params) => ({
        data: await planImageBytes(params.url.slice(PLAN_PROTOCOL.length + 3)),
      }));
      return maplibregl;
    },
    (error: unknown) => {
      loading = null; // the next map tries again (the server was away, say)
      throw error;
    },
  );
  return loading;
}

/**
 * The map's element, which carries its camera and, once made, its MapLibre map (for the browser tests and for
 * debugging from the console).
 */
/** The session's memory of a closed basemap note, and where a site plan is set (运营设置 → 地图设置). */
const NOTE_CLOSED = 'liftdesk.basemapNoteClosed';
const MAP_SETTING = 'map_setting_edit'; // who may upload the site plan
const MAP_SETTING_PATH = '/operation/map';

export type MapElement = HTMLDivElement & { maplibreMap?: MapLibre.Map; mapCamera?: MapCamera };

/**
 * Without its tiles, the basemap's layer is hidden (no more requests) and the background becomes a light grid that
 * moves with the map; `false` puts the basemap back.
 */
function showFallback(map: MapLibre.Map, on: boolean): void {
  if (map.getLayer(BASEMAP_SOURCE)) map.setLayoutProperty(BASEMAP_SOURCE, 'visibility', on ? 'none' : 'visible');
  if (!map.getLayer(BACKGROUND_LAYER)) return;
  if (on && !map.hasImage(FALLBACK_BACKGROUND.image)) {
    const grid = gridImage();
    if (grid) map.addImage(FALLBACK_BACKGROUND.image, grid, { pixelRatio: 2 });
  }
  map.setPaintProperty(
    BACKGROUND_LAYER,
    'background-pattern',
    on && map.hasImage(FALLBACK_BACKGROUND.image) ? FALLBACK_BACKGROUND.image : undefined,
  );
}

const NO_TILES: BasemapStatus = { state: 'none' };
const LOADING: BasemapStatus = { state: 'loading' };

function reasonText(t: TFunction, status: Extract<BasemapStatus, { state: 'failed' }>): string {
  if (status.reason === 'timeout') return t('map.basemapTimeout', { host: status.host, seconds: status.seconds });
  return t('map.basemapError', { host: status.host, detail: status.detail || t('map.basemapUnreachable') });
}

export interface MapViewProps {
  /** The basemap (default: the tenant's, else the configured one). A change rebuilds the map where it stands. */
  basemap?: Basemap;
  /** The site plan under the layers (default: the tenant's, else the configured one; null: none). Follows changes. */
  siteplan?: SitePlan | null;
  /** Where the map opens; layers may move it later (e.g. to fit a shape). */
  center?: LonLat;
  zoom?: number;
  className?: string;
  style?: CSSProperties;
  /** Layers: components that add their sources and layers to the map and remove them when they unmount. */
  children?: ReactNode;
  /**
   * How long symbols fade in and out (ms; MapLibre's default 300). A map whose data changes every second (the live
   * fleet) passes 0: every fade would redraw the map for its length, and without a GPU each redraw is costly.
   */
  fadeDuration?: number;
}


/** The MapLibre map of a MapView and what goes with it (kept in a ref: its callbacks outlive renders). */
interface Engine {
  map: MapLibre.Map | null;
  loaded: boolean;
  stopWatching: () => void;
}

/**
 * A map. It starts as a `PlainCamera` (a 2D camera over a grid, with MapLibre's controls and gestures, and no WebGL
 * context at all), which is all a map needs while it shows only 2D layers (the vehicles). A MapLibre map is made,
 * where the camera stands, once WebGL must draw something: the basemap's tiles (one probed at the map's centre
 * loaded), a site plan, or a `WebGLLayer` (a shape, a track); it then replaces the camera and stays. Its style is a
 * background under the basemap's raster tiles and the site plan (the tenant's setting, else the configured one), so
 * the map and its layers still work when tiles cannot load (offline, a plant network, tests): then a note says why,
 * and when nothing else needs WebGL its canvas is hidden under a 2D grid (`PlainGrid`). Layers render once the
 * tenant's setting has been read (once for every map) and the camera is there.
 */
export default function MapView({ basemap, siteplan, center, zoom, className, style, children, fadeDuration }: MapViewProps) {
  const { t } = useTranslation();
  const container = useRef<MapElement>(null);
  // no WebGL: MapLibre cannot make its context (found when the map is made, not by a context made to find out)
  const [supported, setSupported] = useState(true);
  const [camera, setCamera] = useState<PlainCamera | null>(null);
  const [value, setValue] = useState<MapContextValue | null>(null);
  const tenant = useTenantMap();
  const chosen = basemap ?? tenant.basemap;
  const ready = basemap !== undefined || tenant.ready;
  const basemapKey = JSON.stringify(chosen);
  const first = useMemo(() => JSON.parse(basemapKey) as Basemap, [basemapKey]);
  const plan = siteplan === undefined ? tenant.siteplan : siteplan;
  const planKey = JSON.stringify(plan);
  // where the map opens: the first values, then where it stood before a rebuild (later moves go through the
  // camera: layers fit their shapes)
  const view = useRef<{ center: LonLat; zoom: number }>({ center: center ?? [...website.map.center], zoom: zoom ?? website.map.zoom });
  // the basemap's status: of its tiles' probe (again at each retry), then of the watcher of the tiles on the map
  const [attempt, setAttempt] = useState(0);
  // the note on a basemap that cannot load: closed for the rest of the session (every map page would show it)
  const [noteClosed, setNoteClosed] = useState(() => sessionStorage.getItem(NOTE_CLOSED) === '1');
  const { can } = useAccess();
  const probeKey = `${basemapKey}#${attempt}`;
  const [probed, setProbed] = useState<{ key: string; status: BasemapStatus } | null>(null);
  const status: BasemapStatus = !first.tiles.length ? NO_TILES : probed?.key === probeKey ? probed.status : LOADING;
  const statusRef = useRef(status);
  const probeKeyRef = useRef(probeKey);
  useEffect(() => {
    statusRef.current = status;
    probeKeyRef.current = probeKey;
  }, [status, probeKey]);
  // the layers that MapLibre must draw (see CameraContextValue.needsWebGL), and whether MapLibre has been asked for
  const [webglLayers, setWebglLayers] = useState(0);
  const needsWebGL = useCallback(() => {
    setWebglLayers((n) => n + 1);
    return () => setWebglLayers((n) => n - 1);
  }, []);
  // asked for once, MapLibre stays (it has been paid for; without anything to draw its canvas is hidden)
  const wantsWebGL = status.state === 'ok' || !!plan || webglLayers > 0;
  const [webgl, setWebgl] = useState(false);
  if (wantsWebGL && !webgl) setWebgl(true);
  const [grid, setGrid] = useState<PlainGrid | null>(null);
  const plain = status.state !== 'ok' && !plan && webglLayers === 0;
  const engine = useRef<Engine>({ map: null, loaded: false, stopWatching: () => undefined });
  const cameraRef = useRef<PlainCamera | null>(null);

  /** The view now: the MapLibre map's, else the camera's, else where the map is to open. */
  const currentView = useCallback((): { center: LonLat; zoom: number } => {
    const now = engine.current.map ?? cameraRef.current;
    if (!now) return view.current;
    const c = now.getCenter();
    return { center: [c.lng, c.lat], zoom: now.getZoom() };
  }, []);

  /** The basemap's tiles on the loaded MapLibre map (again, after a retry), watched from then on. */
  const showTiles = useCallback((key: string) => {
    const { map, loaded } = engine.current;
    if (!map || !loaded || statusRef.current.state !== 'ok') return;
    const source = map.getSource<MapLibre.RasterTileSource>(BASEMAP_SOURCE);
    if (source) {
      // ask for the tiles again (the failed ones are not retried by themselves)
      showFallback(map, false);
      source.setTiles([...first.tiles]);
    } else {
      addBasemap(map, first);
    }
    engine.current.stopWatching();
    engine.current.stopWatching = watchBasemap(map, BASEMAP_SOURCE, tileHost(first), (next) => {
      if (next.state === 'failed') showFallback(map, true);
      setProbed({ key, status: next });
    });
  }, [first]);

  // The plain camera, until the MapLibre map has loaded (or for good, when nothing needs WebGL).
  const hasMap = value !== null;
  useEffect(() => {
    const target = container.current;
    if (!target || !ready || hasMap) return;
    const made = new PlainCamera(target, view.current.center, view.current.zoom);
    cameraRef.current = made;
    target.mapCamera = made;
    setCamera(made);
    return () => {
      const c = made.getCenter();
      view.current = { center: [c.lng, c.lat], zoom: made.getZoom() };
      cameraRef.current = null;
      if (target.mapCamera === made) delete target.mapCamera;
      setCamera(null);
      made.remove();
    };
  }, [ready, hasMap]);

  // One tile at the map's centre (again at each retry): when it loads, the tiles go on the map (MapLibre is made
  // for them). Where tiles cannot load (a plant network without internet) the map never asks for them and the note
  // says why at once.
  useEffect(() => {
    if (!ready || !first.tiles.length) return;
    let stopped = false;
    const { center: at, zoom: level } = currentView();
    void probeTile(first.tiles[0], { at, zoom: level }).then((result) => {
      if (stopped) return;
      statusRef.current = result;
      setProbed({ key: probeKey, status: result });
      showTiles(probeKey);
    });
    return () => {
      stopped = true;
    };
  }, [ready, first, probeKey, currentView, showTiles]);

  // The MapLibre map, once asked for: made in the camera's place, and its layers' context once it has loaded.
  useEffect(() => {
    const target = container.current;
    if (!target || !supported || !ready || !webgl) return;
    /** Makes the map in `element`; returns what removes it. */
    function make(maplibregl: MapLibreModule, element: MapElement): () => void {
      const { center: at, zoom: level } = currentView();
      let map: MapLibre.Map;
      try {
        // its controls come when it has loaded (the camera's until then); the style is ours (basemap.ts, checked
        // against the style specification by its tests): not validated again at each map
        map = new maplibregl.Map({
          container: element,
          style: basemapStyle({ ...first, tiles: [] }),
          validateStyle: false,
          center: [at[0], at[1]],
          zoom: level,
          dragRotate: false,
          pitchWithRotate: false,
          touchPitch: false,
          attributionControl: false,
          ...(fadeDuration === undefined ? {} : { fadeDuration }),
        });
      } catch {
        // no WebGL context could be made (MapLibre's "Failed to initialize WebGL")
        setSupported(false);
        return () => undefined;
      }
      map.touchZoomRotate.disableRotation();
      map.keyboard.disableRotation();
      // Tiles that cannot load are the watcher's business; a listener keeps them (and a site plan image that cannot
      // load) off the console.
      map.on('error', () => undefined);
      engine.current = { map, loaded: false, stopWatching: () => undefined };
      element.maplibreMap = map;
      const background = new PlainGrid(map);
      setGrid(background);
      map.once('load', () => {
        engine.current.loaded = true;
        // where the camera stands now (it may have moved while MapLibre loaded)
        const plainCamera = cameraRef.current;
        if (plainCamera) {
          const c = plainCamera.getCenter();
          map.jumpTo({ center: [c.lng, c.lat], zoom: plainCamera.getZoom() });
        }
        map.addControl(new maplibregl.AttributionControl({ compact: true }));
        map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
        map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
        element.mapCamera = map;
        setValue({ map, camera: map, basemap: first, needsWebGL });
        showTiles(probeKeyRef.current);
      });
      const observer = new ResizeObserver(() => map.resize());
      observer.observe(element);
      return () => {
        engine.current.stopWatching();
        observer.disconnect();
        const c = map.getCenter();
        view.current = { center: [c.lng, c.lat], zoom: map.getZoom() };
        engine.current = { map: null, loaded: false, stopWatching: () => undefined };
        setValue(null);
        setGrid(null);
        background.destroy();
        delete element.maplibreMap;
        if (element.mapCamera === map) delete element.mapCamera;
        map.remove();
      };
    }
    // The map is made after the next frame, in a task of its own: making a map (its WebGL context, its painter,
    // reading its container's size) is the longest piece of script of a page that shows one.
    let stopped = false;
    let unmake: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let frame = 0;
    loadMapLibre().then(
      (maplibregl) => {
        if (stopped) return;
        frame = requestAnimationFrame(() => {
          timer = setTimeout(() => (unmake = make(maplibregl, target)), 0);
        });
      },
      // its chunk could not be loaded: the map stays plain (its WebGL layers do not show), the console says why
      (error: unknown) => console.warn('the map could not load MapLibre', error),
    );
    return () => {
      stopped = true;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      unmake?.();
    };
  }, [supported, ready, webgl, first, fadeDuration, currentView, needsWebGL, showTiles]);

  useEffect(() => grid?.show(plain), [grid, plain]);
  // MapLibre made for something else (a track) while the tiles cannot load: its background is the grid too
  const failed = status.state === 'failed';
  useEffect(() => {
    if (value && failed) showFallback(value.map, true);
  }, [value, failed]);

  useEffect(() => {
    if (!value) return;
    syncSitePlan(value.map, JSON.parse(planKey) as SitePlan | null, value.basemap.crs);
  }, [value, planKey]);

  const cameraValue = useMemo<CameraContextValue | null>(
    () => (value ? value : camera ? { camera, basemap: first, needsWebGL } : null),
    [value, camera, first, needsWebGL],
  );

  return (
    <div className={`map-view ${className ?? ''}`} style={style} data-basemap={status.state} data-siteplan={plan ? 'on' : 'off'} data-render={plain || !value ? 'plain' : 'webgl'}>
      <div ref={container} className="map-view-canvas" data-testid="map" />
      {!supported && (
        <div className="map-view-overlay">
          <Result status="warning" title={t('map.unsupported')} />
        </div>
      )}
      {supported && status.state === 'failed' && !noteClosed && (
        <div className="map-view-note" role="status" data-testid="basemap-note">
          <WarningOutlined className="map-view-note-icon" />
          <div className="map-view-note-text">
            <strong>{t('map.basemapUnavailable')}</strong>
            <span>{reasonText(t, status)}</span>
            {!plan && (
              <span>
                {t('map.sitePlanHint')}
                {can(MAP_SETTING) && (
                  <Link to={MAP_SETTING_PATH} data-testid="basemap-note-setting">
                    {t('map.sitePlanLink')}
                  </Link>
                )}
              </span>
            )}
          </div>
          <Button size="small" type="link" onClick={() => setAttempt((n) => n + 1)}>
            {t('map.basemapRetry')}
          </Button>
          <Button
            size="small"
            type="text"
            icon={<CloseOutlined />}
            aria-label={t('map.noteClose')}
            onClick={() => {
              sessionStorage.setItem(NOTE_CLOSED, '1');
              setNoteClosed(true);
            }}
          />
        </div>
      )}
      {cameraValue && (
        <CameraContext.Provider value={cameraValue}>
          <MapContext.Provider value={value}>{children}</MapContext.Provider>
        </CameraContext.Provider>
      )}
    </div>
  );
}
