import { WhenLoaded } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { useGet } from '../../../hooks/use-api.js';
import type { Route } from '../../../router.js';
import { PluginDetail } from './plugin-detail.js';
import { PluginList } from './plugin-list.js';
import { LIST_REFRESH_MS } from './plugin-state.js';
import { Registry } from './registry.js';

/** Plugins: the list (refreshed, so a dropped manifest appears) and the registry; a plugin's page at #/plugins/<id>. */
export function PluginsPage({ route }: { route: Route }) {
  const id = route.parts[1];
  const list = useGet(id ? null : '/plugins', {}, LIST_REFRESH_MS);
  if (id) return <PluginDetail id={id} />;
  return (
    <>
      <Section title="Installed plugins" id="installed">
        <p class="hint">Refreshed every {LIST_REFRESH_MS / 1000} s: a manifest dropped into a plugin folder appears here on its own. Open a plugin for its settings.</p>
        <WhenLoaded loaded={list} loading>
          {(data) => <PluginList plugins={data.plugins} />}
        </WhenLoaded>
      </Section>
      <Registry onChange={list.reload} />
    </>
  );
}
