/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Installed through N8N_COMMUNITY_PACKAGES at start-up (the way in Docker), from the local npm registry:
// n8n 2.x installs the listed version before it serves, lists it as installed and offers its nodes, and
// the Community Nodes screen says the list is managed by the environment. With unverified packages turned
// off (n8n 3.0's default), a package n8n has not verified stops the start-up with a message naming it.
// n8n 1.x has no such variable: it starts with no package.
import { N8N_VERSIONS, TYPE_PREFIX } from '../../scripts/realN8n';
import { installedPackages, nodeTypeNames, ownerPage, startEmptyN8n, useInstallWorld } from './installHarness';
import { CURRENT_VERSION, PACKAGE } from './releases';

const world = useInstallWorld();

const listed = JSON.stringify([{ name: PACKAGE, version: CURRENT_VERSION }]);
const ENV = { N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true', N8N_COMMUNITY_PACKAGES: listed };

describe.each(N8N_VERSIONS)('n8n %s', (version) => {
	const major = Number(version.split('.')[0]);

	it(`N8N_COMMUNITY_PACKAGES=${listed} at start-up`, async () => {
		const at = await startEmptyN8n(world(), version, ENV);
		try {
			const packages = await installedPackages(at);
			if (major >= 2) {
				expect(packages.map((p) => [p.packageName, p.installedVersion])).toEqual([[PACKAGE, CURRENT_VERSION]]);
				expect(await nodeTypeNames(at)).toEqual(
					expect.arrayContaining([`${TYPE_PREFIX}mediaGen`, `${TYPE_PREFIX}mediaGenTrigger`]),
				);
				const page = await ownerPage(world(), at);
				try {
					await page.goto(`${at.base}/settings/community-nodes`);
					const note = page.locator('[data-test-id="community-nodes-managed-by-env"]');
					await note.waitFor();
					console.log(`n8n ${version}, Community Nodes screen: ${await note.innerText()}`);
				} finally {
					await page.close();
				}
			} else {
				// 1.x reads neither variable: nothing is installed.
				expect(packages).toEqual([]);
				expect(await nodeTypeNames(at)).not.toContain(`${TYPE_PREFIX}mediaGen`);
			}
		} finally {
			await at.stop();
		}
	});

	if (major >= 2) {
		it('N8N_UNVERIFIED_PACKAGES_ENABLED=false (n8n 3.0 default) refuses this unverified package at start-up', async () => {
			let message = '';
			try {
				const at = await startEmptyN8n(world(), version, { ...ENV, N8N_UNVERIFIED_PACKAGES_ENABLED: 'false' });
				await at.stop();
			} catch (error) {
				message = String((error as Error).message);
			}
			expect(message).toContain(`no checksum available for '${PACKAGE}@${CURRENT_VERSION}'`);
			expect(message).toContain('unverified packages are disabled');
		});
	}
});
