/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// First step of `npm run release` (so of the publish workflow): stops with what to fill in, before anything is
// built or sent to npm.
import * as fs from 'fs';
import * as path from 'path';

import { publishReadinessProblems } from './readiness';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
const tag = process.env.GITHUB_REF_TYPE === 'tag' ? process.env.GITHUB_REF_NAME : undefined;
const problems = publishReadinessProblems(pkg, { repository: process.env.GITHUB_REPOSITORY, tag });
for (const problem of problems) console.error(`::error file=package.json::${problem}`);
if (problems.length > 0) {
	console.error(
		`Not published: fill in what is listed above once (CONTRIBUTING.md, Publishing)${tag ? ', then push the tag again' : ''}.`,
	);
	process.exitCode = 1;
} else {
	console.log(`Ready to publish ${pkg.name}@${pkg.version}.`);
}
