// What a maintainer fills in once before the first publish: the author's e-mail (n8n's valid-author rule)
// and the repository URL (npm provenance links the package to the GitHub repository it was built in).

export interface PackageIdentity {
	version?: string;
	author?: string | { name?: string; email?: string };
	repository?: string | { type?: string; url?: string };
}

/** The author's e-mail, from the object form or the "Name <email> (url)" shorthand; '' when unset. */
export function authorEmail(pkg: PackageIdentity): string {
	const { author } = pkg;
	if (typeof author === 'string') return (/<([^>]*)>/.exec(author)?.[1] ?? '').trim();
	return (author?.email ?? '').trim();
}

/** "owner/name" of the GitHub repository package.json points at, or undefined when it names none. */
export function githubRepositoryOf(pkg: PackageIdentity): string | undefined {
	const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const match = /github\.com[/:]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url ?? '');
	return match ? `${match[1]}/${match[2]}` : undefined;
}

/** Where the publish workflow runs: GITHUB_REPOSITORY and, for a tag push, GITHUB_REF_NAME. */
export interface WorkflowRun {
	repository?: string;
	tag?: string;
}

/**
 * Why publishing would fail or publish the wrong thing; empty when ready. npm refuses provenance whose
 * repository differs from package.json's, and a tag that is not the version would publish another version.
 */
export function publishReadinessProblems(pkg: PackageIdentity, run: WorkflowRun = {}): string[] {
	const problems: string[] = [];
	const email = authorEmail(pkg);
	if (!email) {
		problems.push(
			'package.json: "author" has no e-mail. n8n refuses community packages without one: ' +
				'add "email" to "author" (CONTRIBUTING.md, Publishing).',
		);
	} else if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(email)) {
		problems.push(`package.json: the author's e-mail "${email}" is not an e-mail address: correct it.`);
	}
	const repository = githubRepositoryOf(pkg);
	if (!repository) {
		problems.push(
			'package.json: "repository" does not name a GitHub repository. npm provenance needs it: set ' +
				'"repository": { "type": "git", "url": "git+https://github.com/OWNER/NAME.git" } (CONTRIBUTING.md, Publishing).',
		);
	} else if (run.repository && repository.toLowerCase() !== run.repository.toLowerCase()) {
		problems.push(
			`package.json: "repository" names ${repository} but this workflow runs in ${run.repository}; ` +
				'npm refuses provenance that does not match: correct the URL.',
		);
	}
	if (run.tag && run.tag !== `v${pkg.version}`) {
		problems.push(
			`The tag ${run.tag} is not package.json's version ${pkg.version}: tag v${pkg.version}, ` +
				'or set the version first (npm run release does both).',
		);
	}
	return problems;
}
