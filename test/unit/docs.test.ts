/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The documentation (issue 43): every relative link in the README, ARCHITECTURE, GUARANTEES, CONTRIBUTING and docs/
// resolves to a file and, when it names one, to a heading there (GitHub's anchors); images exist; the README stays a
// page a user reads in minutes (at most 150 lines, no paths into test/ or bench/, one link to the "How it is tested"
// page); ARCHITECTURE.md stays a map read in ten minutes (at most 300 lines; the evidence is in GUARANTEES.md);
// docs/ holds at most six user pages.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const DOCS = readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
const PAGES = ['README.md', 'ARCHITECTURE.md', 'GUARANTEES.md', 'CONTRIBUTING.md', ...DOCS.map((f) => `docs/${f}`)];
const read = (file: string) => readFileSync(path.join(REPO, file), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchorsOf(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const anchors = new Set<string>();
	const outsideCode = markdown.replace(/```[\s\S]*?```/g, '');
	for (const [, title] of outsideCode.matchAll(/^#{1,6} (.+)$/gm)) {
		const base = title
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n ? `${base}-${n}` : base);
	}
	return anchors;
}

/** Relative link targets in a page: Markdown links and images, and <img src>, outside code blocks and spans. */
function linksOf(markdown: string): string[] {
	const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
	const targets = [
		...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]),
		...[...text.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]),
	];
	return targets.filter((t) => !/^[a-z]+:/i.test(t));
}

test.each(PAGES)('%s: every relative link resolves, headings included', (page) => {
	const broken: string[] = [];
	for (const link of linksOf(read(page))) {
		const [file, anchor] = link.split('#');
		const target = file ? path.normalize(path.join(path.dirname(page), file)) : page;
		const full = path.join(REPO, target);
		if (!existsSync(full)) broken.push(`${link}: no ${target}`);
		else if (anchor && statSync(full).isFile() && !anchorsOf(read(target)).has(anchor))
			broken.push(`${link}: no heading #${anchor} in ${target}`);
	}
	expect(broken).toEqual([]);
});

test('the README is short, has no paths into test/ or bench/, and links once to How it is tested', () => {
	const readme = read('README.md');
	expect(readme.split('\n').length).toBeLessThanOrEqual(150);
	expect(readme).not.toMatch(/\b(test|bench)\//);
	expect(readme.match(/ARCHITECTURE\.md/g)).toHaveLength(1);
	expect(readme).toMatch(/\[How it is tested\]\(ARCHITECTURE\.md#how-it-is-tested\)/);
});

test('ARCHITECTURE.md is a map of at most 300 lines that links to the evidence in GUARANTEES.md', () => {
	const architecture = read('ARCHITECTURE.md');
	expect(architecture.split('\n').length).toBeLessThanOrEqual(300);
	expect(architecture).toMatch(/\]\(GUARANTEES\.md\)/);
});

test('docs/ has at most six pages, each starting with what the user sees and does, none for developers', () => {
	expect(DOCS.length).toBeLessThanOrEqual(6);
	expect(DOCS).not.toContain('developers.md');
	for (const page of DOCS) {
		const text = read(`docs/${page}`);
		// No test paths or engine internals on a user page: those live in ARCHITECTURE.md.
		expect([page, text.match(/\b(test|bench)\/[\w./-]+|handleWaitingState|resumeError/g)]).toEqual([page, null]);
		// The first paragraph speaks to the user.
		const first = text.split('\n\n')[1] ?? '';
		expect([page, /\byou\b/i.test(first)]).toEqual([page, true]);
	}
});

test('2.x is named by N8N_WEBHOOK_URL wherever the webhook address is set, WEBHOOK_URL only as the older name', () => {
	for (const page of ['README.md', ...DOCS.map((f) => `docs/${f}`)]) {
		if (/(?<!N8N_)WEBHOOK_URL/.test(read(page)))
			expect([page, read(page)]).toEqual([page, expect.stringContaining('N8N_WEBHOOK_URL')]);
		for (const line of read(page)
			.split('\n')
			.filter((l) => /(?<!N8N_)WEBHOOK_URL/.test(l))) {
			expect([page, line]).toEqual([page, expect.stringMatching(/1\.x|older/)]);
		}
	}
});

test('no page tells queue-mode users to set N8N_COMMUNITY_PACKAGES on workers', () => {
	for (const page of PAGES)
		expect([page, read(page)]).not.toEqual([page, expect.stringMatching(/same `?N8N_COMMUNITY_PACKAGES/)]);
});
