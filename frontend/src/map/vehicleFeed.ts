import type { GeoJSONFeatureDiff, GeoJSONSource } from 'maplibre-gl';
import { toMapCrs, type Basemap } from './basemap';
import type { LonLat } from './geo';
import { vehicleCategory } from './vehicleStyle';

/** One vehicle on the map (WGS-84). */
export interface MapVehicle {
  id: string;
  position: LonLat;
  /** off | idle | moving | loaded: the dot's colour. */
  state: string;
  online: boolean;
  alarm: boolean;
  /** Heading in degrees (0 north, clockwise): the arrow's direction. */
  direction: number;
}

/** The map follows the fleet at most this often (ms): the list follows each live batch, the map need not. */
export const MAP_UPDATE_MS = 1000;

interface Sent {
  vehicle: MapVehicle;
  selected: boolean;
  /** The pass that last saw the vehicle (one not seen by the latest is removed). */
  pass: number;
}

interface Wanted {
  vehicles: readonly MapVehicle[];
  selected: string | null;
  crs: Basemap['crs'];
}

function featureOf(v: MapVehicle, selected: boolean, crs: Basemap['crs']): GeoJSON.Feature {
  return {
    type: 'Feature',
    properties: propertiesOf(v, selected),
    geometry: { type: 'Point', coordinates: toMapCrs(v.position, crs) },
  };
}

function propertiesOf(v: MapVehicle, selected: boolean) {
  return { id: v.id, state: v.state, category: vehicleCategory(v), online: v.online, alarm: v.alarm, direction: v.direction, selected };
}

/**
 * Feeds the vehicles' GeoJSON source with what changed only: the first time (and after a change of basemap, whose
 * coordinates differ) the whole fleet by `setData`, then a diff by `updateData` (features keyed by the vehicle's id,
 * the source's `promoteId`): the vehicles added, those gone, and for those whose position or look changed, what
 * changed. A large fleet's update then costs the main thread (and the worker's copy) a few features, not thousands.
 * Updates go out at most once per MAP_UPDATE_MS, with the newest state at that moment.
 */
export class MapFeed {
  private sent = new Map<string, Sent>();
  private crs: Wanted['crs'] | null = null;
  private pass = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private last = -Infinity;

  constructor(
    private readonly source: () => Pick<GeoJSONSource, 'setData' | 'updateData'> | undefined,
    private readonly wanted: () => Wanted,
    private readonly intervalMs = MAP_UPDATE_MS,
  ) {}

  /** The next update goes out as soon as the interval since the last one allows. */
  schedule(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.last = performance.now();
      this.flush();
    }, wait);
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends the source what differs between what it has and what is wanted now. */
  flush(): void {
    const src = this.source();
    if (!src) return;
    const { vehicles, selected, crs } = this.wanted();
    const pass = (this.pass += 1);
    if (this.crs !== crs || this.sent.size === 0) {
      this.crs = crs;
      this.sent = new Map();
      const features = vehicles.map((v) => {
        const isSelected = v.id === selected;
        this.sent.set(v.id, { vehicle: v, selected: isSelected, pass });
        return featureOf(v, isSelected, crs);
      });
      void src.setData({ type: 'FeatureCollection', features });
      return;
    }
    const add: GeoJSON.Feature[] = [];
    const update: GeoJSONFeatureDiff[] = [];
    for (const v of vehicles) {
      const isSelected = v.id === selected;
      const before = this.sent.get(v.id);
      if (!before) {
        add.push(featureOf(v, isSelected, crs));
        this.sent.set(v.id, { vehicle: v, selected: isSelected, pass });
        continue;
      }
      before.pass = pass;
      const was = before.vehicle;
      if (was === v && before.selected === isSelected) continue;
      const diff = changes(was, before.selected, v, isSelected, crs);
      if (diff) update.push(diff);
      before.vehicle = v;
      before.selected = isSelected;
    }
    const remove: string[] = [];
    for (const [id, s] of this.sent) if (s.pass !== pass) remove.push(id);
    for (const id of remove) this.sent.delete(id);
    if (add.length || update.length || remove.length) void src.updateData({ add, update, remove });
  }
}

/** What changed in a vehicle's feature (its position, the properties that differ), or null when nothing did. */
function changes(was: MapVehicle, wasSelected: boolean, now: MapVehicle, selected: boolean, crs: Wanted['crs']): GeoJSONFeatureDiff | null {
  const diff: GeoJSONFeatureDiff = { id: now.id };
  if (was.position[0] !== now.position[0] || was.position[1] !== now.position[1])
    diff.newGeometry = { type: 'Point', coordinates: toMapCrs(now.position, crs) };
  const before = propertiesOf(was, wasSelected);
  const after = propertiesOf(now, selected);
  const props: { key: string; value: unknown }[] = [];
  for (const key of Object.keys(after) as (keyof typeof after)[]) if (before[key] !== after[key]) props.push({ key, value: after[key] });
  if (props.length) diff.addOrUpdateProperties = props;
  return diff.newGeometry || props.length ? diff : null;
}
