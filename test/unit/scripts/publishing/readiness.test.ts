// scripts/publishing/readiness.ts: what package.json and the tag need before the publish workflow publishes.
import { authorEmail, githubRepositoryOf, publishReadinessProblems } from '../../../../scripts/publishing/readiness';

const READY = {
	version: '0.2.0',
	author: { name: 'Ada', email: 'ada@example.org' },
	repository: { type: 'git', url: 'git+https://github.com/acme/n8n-nodes-mediagen.git' },
};

describe('publish readiness (the publish workflow stops on any of these)', () => {
	test('a filled-in package.json on its own tag is ready', () => {
		expect(publishReadinessProblems(READY, { repository: 'acme/n8n-nodes-mediagen', tag: 'v0.2.0' })).toEqual([]);
	});

	test.each([
		['no author', {}],
		['an author without e-mail', { author: { name: 'Ada' } }],
		['a shorthand author without e-mail', { author: 'Ada (https://ada.example)' }],
		['an empty e-mail', { author: { name: 'Ada', email: '  ' } }],
	])('%s: the e-mail is named as missing', (_, author) => {
		const problems = publishReadinessProblems({ ...READY, author: undefined, ...author });
		expect(problems).toEqual([expect.stringContaining('"author" has no e-mail')]);
	});

	test('an e-mail that is not one is refused, quoted', () => {
		expect(publishReadinessProblems({ ...READY, author: { email: 'ada at example' } })).toEqual([
			expect.stringContaining('"ada at example" is not an e-mail address'),
		]);
	});

	test.each([
		['unset', undefined],
		["the starter's placeholder", 'https://github.com/<...>/n8n-nodes-<...>.git'],
		['another host', 'https://gitlab.com/acme/n8n-nodes-mediagen.git'],
	])('a repository URL %s is refused with the shape to set', (_, url) => {
		const problems = publishReadinessProblems({ ...READY, repository: url === undefined ? undefined : { url } });
		expect(problems).toEqual([expect.stringContaining('"repository" does not name a GitHub repository')]);
	});

	test('a repository other than the one the workflow runs in is refused, naming both', () => {
		expect(publishReadinessProblems(READY, { repository: 'someone/fork' })).toEqual([
			expect.stringContaining('names acme/n8n-nodes-mediagen but this workflow runs in someone/fork'),
		]);
	});

	test('a tag that is not the version is refused, naming the tag to push', () => {
		expect(publishReadinessProblems(READY, { tag: 'v0.3.0' })).toEqual([
			expect.stringContaining("The tag v0.3.0 is not package.json's version 0.2.0: tag v0.2.0"),
		]);
	});

	test.each([
		['git+https://github.com/acme/repo.git', 'acme/repo'],
		['https://github.com/acme/repo', 'acme/repo'],
		['git@github.com:acme/repo.git', 'acme/repo'],
		['github.com/acme', undefined],
	])('repository %p is %p', (url, expected) => expect(githubRepositoryOf({ repository: url })).toBe(expected));

	test('the shorthand author form gives its e-mail', () => {
		expect(authorEmail({ author: 'Ada <ada@example.org> (https://ada.example)' })).toBe('ada@example.org');
	});
});
