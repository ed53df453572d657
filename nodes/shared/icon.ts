// The one icon (light and dark), kept in icons/ at the package root, for both nodes and the three credentials.
// n8n resolves `file:` paths from the file that names them.
import type { Icon } from 'n8n-workflow';

const iconFrom = (root: string): Icon => ({
	light: `file:${root}icons/mediagen.svg`,
	dark: `file:${root}icons/mediagen.dark.svg`,
});

export const MEDIAGEN_ICON = iconFrom('../'); // for credentials/<Name>.credentials.ts
export const MEDIAGEN_NODE_ICON = iconFrom('../../'); // for nodes/<Node>/<Node>.node.ts
