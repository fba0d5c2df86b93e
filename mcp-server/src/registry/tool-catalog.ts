// A frozen snapshot of every tool the live services offer, under the names MCP clients see, sorted
// by that name; and whether two snapshots list the same to a client.
import type { RemoteTool, ServiceEndpoint, ToolCatalog } from '../remote-tools.ts';
import { exposedNames } from './exposed-names.ts';
import type { ServiceTool } from './service-tools.ts';

/** What one live service contributes to the catalog. */
export interface CatalogSource {
  readonly service: ServiceEndpoint;
  readonly tools: readonly ServiceTool[];
}

/** A catalog, with what the registry compares snapshots by. */
export interface CatalogSnapshot extends ToolCatalog {
  /** Per tool, in catalog order: its exposed name and fingerprint, for comparing what clients see. */
  readonly fingerprints: readonly string[];
}

/**
 * The title each tool is listed with: the pinned app's as they are, as its names; every other app's
 * naming its app after it (`Delete a webhook (evil-tools)`), as its names carry its key, so that no
 * app can pass its tool for another's by title (a look-alike in any script or with invisible
 * characters included, which no comparison of titles would catch).
 */
function shownTitles(entries: readonly { service: ServiceEndpoint; tool: ServiceTool }[], plainNamesApp: string | undefined): (string | undefined)[] {
  return entries.map(({ service, tool }) => {
    const { title } = tool.definition;
    return title === undefined || service.appKey === plainNamesApp ? title : `${title} (${service.appKey})`;
  });
}

/** `plainNamesApp`: the app key whose tools keep their own names; every other app's are prefixed. */
export function buildCatalog(version: number, sources: Iterable<CatalogSource>, plainNamesApp?: string): CatalogSnapshot {
  const entries = [...sources].flatMap(({ service, tools }) => tools.map((tool) => ({ service, tool })));
  const names = exposedNames(
    entries.map(({ service, tool }) => ({
      appKey: service.appKey,
      appClientId: service.appClientId,
      serviceName: service.serviceName,
      name: tool.definition.name,
      since: service.since,
    })),
    plainNamesApp,
  );
  const titles = shownTitles(entries, plainNamesApp);
  const listed = entries
    .map(({ service, tool }, index) => ({ exposedName: names[index] ?? tool.definition.name, title: titles[index], service, tool }))
    .sort((a, b) => (a.exposedName < b.exposedName ? -1 : a.exposedName > b.exposedName ? 1 : 0));
  const tools: readonly RemoteTool[] = Object.freeze(
    listed.map(({ exposedName, title, service, tool }) => Object.freeze({ exposedName, ...tool.definition, title, service })),
  );
  const byName = new Map(tools.map((tool) => [tool.exposedName, tool]));
  const snapshot: CatalogSnapshot = {
    version,
    tools,
    byName: (exposedName) => byName.get(exposedName),
    fingerprints: Object.freeze(listed.map(({ exposedName, title, tool }) => `${exposedName}\n${title ?? ''}\n${tool.fingerprint}`)),
  };
  return Object.freeze(snapshot);
}

/** Whether an MCP client would see the same tools in both: same exposed names, same definitions. */
export function listsTheSame(a: CatalogSnapshot, b: CatalogSnapshot): boolean {
  return a.fingerprints.length === b.fingerprints.length && a.fingerprints.every((fingerprint, index) => fingerprint === b.fingerprints[index]);
}

/** Whether both send every tool to the same registration. */
export function routesTheSame(a: ToolCatalog, b: ToolCatalog): boolean {
  return a.tools.length === b.tools.length && a.tools.every((tool, index) => tool.service === b.tools[index]?.service);
}
