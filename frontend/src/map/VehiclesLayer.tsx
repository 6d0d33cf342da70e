import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toMapCrs } from './basemap';
import { useCamera, type MapElementHooks } from './context';
import { boundsOf, type LonLat } from './geo';
import type { MapVehicle } from './vehicleCanvas';
import { VehicleOverlay } from './vehicleOverlay';
import { ALARM_COLOR, categoryColor, categoryLabelKey, VEHICLE_CATEGORIES } from './vehicleStyle';

export type { MapVehicle } from './vehicleCanvas';
export { CLUSTER_MAX_ZOOM } from './vehicleCanvas';

/** The colours of the map's vehicles and what they mean (the monitor's words for the states). */
export function VehicleLegend() {
  const { t } = useTranslation();
  return (
    <div className="map-legend" data-testid="vehicle-legend" title={t('map.legend.cluster')}>
      {VEHICLE_CATEGORIES.map((c) => (
        <div className="map-legend-item" key={c} data-category={c}>
          <span className="map-legend-dot" style={{ background: categoryColor(c) }} />
          {t(categoryLabelKey(c))}
        </div>
      ))}
      <div className="map-legend-item" data-category="alarm">
        <span className="map-legend-dot map-legend-alarm" style={{ borderColor: ALARM_COLOR }} />
        {t('monitor.filter.alarm')}
      </div>
    </div>
  );
}

export interface VehiclesLayerProps {
  vehicles: MapVehicle[];
  selected?: string | null;
  onSelect?: (id: string) => void;
  /** Fit the view to the vehicles when they first arrive (default: yes). Later the user's own moves are left alone. */
  fitOnArrival?: boolean;
  /** Show the legend of the colours (default: yes). */
  legend?: boolean;
}

/**
 * The fleet as dots coloured by state, with a heading arrow on those that move, a red ring on those with an alarm
 * in progress and a larger dot for the selected one; vehicles close together on screen are drawn as one cluster
 * with their count (a click zooms into it). A click on a vehicle selects it. Drawn on a 2D canvas over the map
 * (`VehicleOverlay`: a live update never makes the map draw a WebGL frame). Renders the legend.
 */
export function VehiclesLayer({ vehicles, selected = null, onSelect, fitOnArrival = true, legend = true }: VehiclesLayerProps) {
  const { camera: map, basemap } = useCamera();
  const select = useRef(onSelect);
  useEffect(() => {
    select.current = onSelect;
  });
  // one overlay for the layer's life, drawn on whichever camera the map has (the plain one, then MapLibre's)
  const [overlay, setOverlay] = useState<VehicleOverlay | null>(null);
  useEffect(() => {
    const o = new VehicleOverlay((id) => select.current?.(id));
    setOverlay(o);
    return () => {
      o.destroy();
      setOverlay(null);
    };
  }, []);
  useEffect(() => {
    if (!overlay) return;
    overlay.attach(map);
    const element = map.getContainer() as HTMLElement & MapElementHooks;
    element.vehicleMarkers = () => overlay.drawn();
    return () => {
      delete element.vehicleMarkers;
      overlay.detach();
    };
  }, [overlay, map]);
  useEffect(() => overlay?.set({ vehicles, selected, crs: basemap.crs }), [overlay, vehicles, selected, basemap]);

  // The fleet's extent when the first positions arrive, and again while more arrive (the feed sends a large fleet in
  // pieces) or the map changes size (a window resized, a phone turned), as long as the view is where the last fit
  // left it: once moved (by the user, or by another layer flying to a vehicle) it is left alone. A resize keeps the
  // centre and zoom, so a changed view is a moved one.
  const fit = useRef<{
    bounds: [LonLat, LonLat] | null;
    follow: boolean;
    count: number;
    view: { lng: number; lat: number; zoom: number } | null;
    timer?: ReturnType<typeof setTimeout>;
  }>({ bounds: null, follow: fitOnArrival, count: 0, view: null });
  useEffect(() => () => clearTimeout(fit.current.timer), []);
  useEffect(() => {
    const state = fit.current;
    const apply = () => {
      if (!state.bounds) return;
      const { clientWidth: width, clientHeight: height } = map.getContainer();
      const padding = Math.max(16, Math.min(96, Math.floor(Math.min(width, height) / 5)));
      map.fitBounds(state.bounds, { padding, maxZoom: 17, animate: false });
      const { lng, lat } = map.getCenter();
      state.view = { lng, lat, zoom: map.getZoom() };
    };
    /** The view is no longer where the last fit left it (then it is not fitted again). */
    const moved = () => {
      const { view } = state;
      if (!view) return false;
      const { lng, lat } = map.getCenter();
      if (Math.abs(lng - view.lng) > 1e-9 || Math.abs(lat - view.lat) > 1e-9 || Math.abs(map.getZoom() - view.zoom) > 1e-9) state.follow = false;
      return !state.follow;
    };
    const resized = () => {
      if (state.follow && state.view && !moved()) apply();
    };
    // fitted in a task of its own, after the one that brought the fleet (each fit costs a frame of the map)
    if (state.follow && vehicles.length > 0 && vehicles.length !== state.count && !moved()) {
      state.count = vehicles.length;
      state.bounds = boundsOf(vehicles.map((v) => toMapCrs(v.position, basemap.crs)));
      clearTimeout(state.timer);
      state.timer = setTimeout(apply, 0);
    }
    map.on('resize', resized);
    return () => {
      map.off('resize', resized);
    };
  }, [vehicles, map, basemap]);
  return legend ? <VehicleLegend /> : null;
}
