import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toMapCrs } from './basemap';
import { useMapContext, type MapElementHooks } from './context';
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
  const { map, basemap } = useMapContext();
  const select = useRef(onSelect);
  useEffect(() => {
    select.current = onSelect;
  });
  const [overlay, setOverlay] = useState<VehicleOverlay | null>(null);
  useEffect(() => {
    const o = new VehicleOverlay(map, (id) => select.current?.(id));
    const element = map.getContainer() as HTMLElement & MapElementHooks;
    element.vehicleMarkers = () => o.drawn();
    setOverlay(o);
    return () => {
      delete element.vehicleMarkers;
      o.destroy();
      setOverlay(null);
    };
  }, [map]);
  useEffect(() => overlay?.set({ vehicles, selected, crs: basemap.crs }), [overlay, vehicles, selected, basemap]);

  // The fleet's extent when the first positions arrive; fitted again when the map changes size (a window resized,
  // a phone turned) as long as the view is where that fit left it: once moved (by the user, or by another layer
  // flying to a vehicle) it is left alone. A resize keeps the centre and zoom, so a changed view is a moved one.
  const fit = useRef<{
    bounds: [LonLat, LonLat] | null;
    follow: boolean;
    view: { lng: number; lat: number; zoom: number } | null;
    timer?: ReturnType<typeof setTimeout>;
  }>({ bounds: null, follow: fitOnArrival, view: null });
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
    const resized = () => {
      const { view } = state;
      if (!state.follow || !view) return;
      const { lng, lat } = map.getCenter();
      const moved = Math.abs(lng - view.lng) > 1e-9 || Math.abs(lat - view.lat) > 1e-9 || Math.abs(map.getZoom() - view.zoom) > 1e-9;
      if (moved) state.follow = false;
      else apply();
    };
    // the first fit in a task of its own, after the one that brought the fleet (each costs a frame of the map)
    if (!state.bounds && state.follow && vehicles.length > 0) {
      state.bounds = boundsOf(vehicles.map((v) => toMapCrs(v.position, basemap.crs)));
      state.timer = setTimeout(apply, 0);
    }
    map.on('resize', resized);
    return () => {
      map.off('resize', resized);
    };
  }, [vehicles, map, basemap]);
  return legend ? <VehicleLegend /> : null;
}
