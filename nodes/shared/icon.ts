// The one icon (light and dark), kept in icons/ at the package root, for both nodes and the three credentials.
import type { Icon } from 'n8n-workflow';

/** n8n resolves `file:` paths from the file that names them. */
function iconFrom(root: string): Icon {
	return { light: `file:${root}icons/mediagen.svg`, dark: `file:${root}icons/mediagen.dark.svg` };
}

/** For credentials/<Name>.credentials.ts. */
export const MEDIAGEN_ICON = iconFrom('../');

/** For nodes/<Node>/<Node>.node.ts. */
export const MEDIAGEN_NODE_ICON = iconFrom('../../');
