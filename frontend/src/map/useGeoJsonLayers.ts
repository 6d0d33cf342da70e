import { useEffect, useId, useRef } from 'react';
import type { GeoJSONSource, GeoJSONSourceSpecification, LayerSpecification } from 'maplibre-gl';
import { useMapContext } from './context';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A layer drawn from the hook's GeoJSON source: its `id` is a suffix of the source's id, its `source` is implied. */
export type SourceLayer = DistributiveOmit<Exclude<LayerSpecification, { type: 'background' }>, 'source'>;

/** What a source may say besides its data (clustering, say). */
export type SourceOptions = Omit<GeoJSONSourceSpecification, 'type' | 'data'>;

/**
 * A GeoJSON source and its layers on the map for the life of the calling component, fed with `features` whenever
 * that array changes (memoise it). The layers are added again when `styleKey` changes: pass what their paint
 * depends on (a colour, say). `options` are read when the source is added (clustering, say). Returns the map ids of
 * the layers, in the order given (for event handlers).
 */
export function useGeoJsonLayers(
  prefix: string,
  layers: SourceLayer[],
  features: GeoJSON.Feature[],
  styleKey = '',
  options?: SourceOptions,
): string[] {
  const { map } = useMapContext();
  const source = `${prefix}-${useId().replace(/:/g, '')}`;
  const spec = useRef({ layers, options });
  useEffect(() => {
    spec.current = { layers, options };
  });
  const ids = layers.map((layer) => `${source}-${layer.id}`);

  useEffect(() => {
    map.addSource(source, { ...spec.current.options, type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    const added = spec.current.layers.map((layer) => {
      const id = `${source}-${layer.id}`;
      map.addLayer({ ...layer, id, source } as LayerSpecification);
      return id;
    });
    return () => {
      for (const id of added.reverse()) if (map.getLayer(id)) map.removeLayer(id);
      if (map.getSource(source)) map.removeSource(source);
    };
  }, [map, source, styleKey]);

  useEffect(() => {
    const src = map.getSource(source) as GeoJSONSource | undefined;
    void src?.setData({ type: 'FeatureCollection', features });
  }, [map, source, styleKey, features]);

  return ids;
}
