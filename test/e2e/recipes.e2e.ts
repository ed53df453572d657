/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The recipes in examples/recipes/ in real n8n: each imports with every node type known and no parameter
// issues as n8n's editor computes them; the ones whose far end runs here go end to end against the sandbox
// (a multipart receiver standing in for WordPress, disk, an SMTP sink), and the bytes that arrive are the
// bytes the sandbox served. Slack and Google Drive are not called: their parameters are checked instead.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import {
	activateWorkflow,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	localiseWorkflow,
	N8N_MAJOR,
	ownerSession,
	rest,
	REPO,
	startServer,
	stopServer,
	type N8nInstance,
	type RunData,
} from '../../scripts/realN8n';
import { bootStack } from '../../scripts/stack';
import { startCmsReceiver, type CmsReceiver } from './recipes/cmsReceiver';
import { submitForm } from './recipes/formClient';
import { problemsOf as nodeProblems, type WorkflowNode } from './recipes/nodeIssues';
import { startSmtpSink, type SmtpSink } from './recipes/smtpSink';

interface Workflow extends Record<string, unknown> {
	id: string;
	nodes: WorkflowNode[];
}

const RECIPES_DIR = path.join(REPO, 'examples/recipes');
// Human review of AI tool calls exists in n8n 2.x only: that recipe's 1.x check is in agent-approval.e2e.ts.
const ONLY_2X = ['agent-asks-before-generating.json'];
const recipeFiles = readdirSync(RECIPES_DIR).filter(
	(f) => f.endsWith('.json') && (N8N_MAJOR >= 2 || !ONLY_2X.includes(f)),
);
const recipeIdOf = (file: string) => `mgRecipe${String(recipeFiles.indexOf(file) + 1).padStart(8, '0')}`;
const readRecipe = (file: string) => JSON.parse(readFileSync(path.join(RECIPES_DIR, file), 'utf8')) as Workflow;
const FORM_RECIPES = ['form-for-colleagues.json', 'photo-to-video.json'];
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let sb: Sandbox;
let n8n: N8nInstance;
let cms: CmsReceiver;
let smtp: SmtpSink;
let cookie = '';
const runs: Record<string, RunData> = {};

/** The recipe as this instance runs it: sandbox, output folder and CMS addresses, and the test's credentials. */
function localRecipe(file: string): Workflow {
	const wf = localiseWorkflow(readRecipe(file), sb.rootUrl, n8n.outputDir, recipeIdOf(file)) as Workflow;
	const text = JSON.stringify(wf).split('https://your-site.example').join(cms.baseUrl);
	const local = JSON.parse(text) as Workflow;
	const credentialOf: Record<string, Record<string, { id: string; name: string }>> = {
		'n8n-nodes-base.httpRequest': { httpBasicAuth: { id: 'recipeCmsBasic', name: 'CMS user' } },
		'n8n-nodes-base.wordpress': { wordpressApi: { id: 'recipeWordpress', name: 'WordPress' } },
		'n8n-nodes-base.emailSend': { smtp: { id: 'recipeSmtp', name: 'SMTP sink' } },
	};
	for (const node of local.nodes) if (credentialOf[node.type]) node.credentials = credentialOf[node.type];
	return local;
}

function items(run: RunData, node: string) {
	const task = run.resultData.runData[node]?.[0];
	if (!task?.data) throw new Error(`No output from "${node}": ${JSON.stringify(task?.error ?? run.resultData.error)}`);
	return task.data.main[0];
}

/** The bytes behind a run output's URL, as the sandbox serves them. */
async function served(url: string): Promise<Buffer> {
	const res = await fetch(url);
	if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
	return Buffer.from(await res.arrayBuffer());
}

beforeAll(async () => {
	const stack = await bootStack();
	({ sandbox: sb, n8n } = stack);
	cms = await startCmsReceiver();
	smtp = await startSmtpSink();
	await importCredentials(n8n, [
		{ id: 'recipeCmsBasic', name: 'CMS user', type: 'httpBasicAuth', data: { user: 'editor', password: 'app-pass' } },
		{
			id: 'recipeWordpress',
			name: 'WordPress',
			type: 'wordpressApi',
			data: { url: cms.baseUrl, username: 'editor', password: 'app-pass' },
		},
		{
			id: 'recipeSmtp',
			name: 'SMTP sink',
			type: 'smtp',
			data: { user: '', password: '', host: '127.0.0.1', port: String(smtp.port), secure: '', disableStartTls: 'true' },
		},
	]);
	await importWorkflows(n8n, recipeFiles.map(localRecipe));
	for (const file of ['generate-to-wordpress.json', 'song-to-email.json'])
		runs[file] = await executeWorkflow(n8n, recipeIdOf(file));
	for (const file of FORM_RECIPES) await activateWorkflow(n8n, recipeIdOf(file));
	await startServer(n8n);
	cookie = await ownerSession(n8n);
});

afterAll(async () => {
	if (n8n) await stopServer(n8n);
	await cms?.close();
	await smtp?.close();
	if (sb) await sb.close();
});

/** What n8n's editor would flag on these nodes: unknown types or versions, and parameter issues. */
const problemsOf = async (nodes: WorkflowNode[]) => await nodeProblems(n8n, cookie, nodes);

describe('every recipe imports with known node types and no parameter issues', () => {
	test.each(recipeFiles)('%s', async (file) => {
		const { data: stored } = await rest<{ data: Workflow }>(n8n, cookie, `/rest/workflows/${recipeIdOf(file)}`);
		expect(stored.nodes.map((n) => n.name)).toEqual(readRecipe(file).nodes.map((n) => n.name));
		expect(await problemsOf(stored.nodes)).toEqual([]);
	});

	test('the check sees a blank required field and a version n8n does not have', async () => {
		const [, , mail] = readRecipe('song-to-email.json').nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
		const blank = { ...mail, parameters: { ...mail.parameters, toEmail: '' } };
		const future = { ...mail, name: 'Future', typeVersion: 99 };
		const problems = await problemsOf([blank, future]);
		expect(problems).toHaveLength(2);
		expect(problems[0]).toMatch(/^E-mail the Song: .*toEmail/);
		expect(problems[1]).toBe('Future: n8n knows no n8n-nodes-base.emailSend version 99');
	});
});

describe('generate → WordPress: multipart media upload, a draft post using it, a copy on disk', () => {
	test('the CMS receives the bytes the sandbox served, named and typed, and the draft shows it', async () => {
		const run = runs['generate-to-wordpress.json'];
		const [generated] = items(run, 'Generate Picture');
		const url = (generated.json.outputs as Array<{ url: string }>)[0].url;
		const original = await served(url);
		expect(cms.uploads).toHaveLength(1);
		const [upload] = cms.uploads;
		expect(upload.authorization).toBe(`Basic ${Buffer.from('editor:app-pass').toString('base64')}`);
		expect(upload.field).toBe('file');
		expect(upload.type).toBe('image/png');
		expect(upload.fileName).toBe(generated.binary?.data.fileName);
		expect(upload.fileName).toMatch(/^a-cosy-reading-corner-.*\.png$/);
		expect(sha256(upload.bytes)).toBe(sha256(original));
		expect(upload.fields.alt_text).toBe(generated.json.prompt);
		expect(cms.posts).toHaveLength(1);
		expect(cms.posts[0].body).toMatchObject({ status: 'draft' });
		expect(String(cms.posts[0].body.content)).toContain(`src="${cms.baseUrl}/media/${upload.fileName}"`);
		const [copy] = items(run, 'Keep a Copy');
		expect(path.dirname(String(copy.json.fileName))).toBe(n8n.outputDir);
		expect(sha256(readFileSync(String(copy.json.fileName)))).toBe(sha256(original));
	});
});

describe('a song → e-mail with both takes and the lyrics', () => {
	test('the message carries both MP3 takes byte for byte and the lyrics in its body', async () => {
		const [song] = items(runs['song-to-email.json'], 'Generate Song');
		const outputs = song.json.outputs as Array<{ url: string; lyrics?: string; title?: string }>;
		expect(smtp.messages).toHaveLength(1);
		const [mail] = smtp.messages;
		expect(mail.from).toBe('songs@example.com');
		expect(mail.to).toEqual(['team@example.com']);
		expect(mail.attachments.map((a) => a.fileName)).toEqual([song.binary?.data.fileName, song.binary?.data_1.fileName]);
		for (const [i, attachment] of mail.attachments.entries()) {
			expect(attachment.type).toBe('audio/mpeg');
			expect(attachment.fileName).toMatch(/\.mp3$/);
			expect(sha256(attachment.bytes)).toBe(sha256(await served(outputs[i].url)));
		}
		expect(mail.text).toContain(String(outputs[0].lyrics).split('\n')[1]);
		expect(mail.text).toContain('Lyrics:');
	});
});

/** The form's production URL: n8n 2.x and 1.x serve a Form Trigger without a path at its webhook id. */
const formUrlOf = (file: string) => {
	const trigger = readRecipe(file).nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger') as { webhookId?: string };
	return `http://127.0.0.1:${n8n.port}/form/${trigger.webhookId}`;
};

const n8nLog = () => n8n.log.join('');

describe('forms filled in over HTTP', () => {
	test('a colleague asks for a picture: the result page shows it by URL and hands out the same bytes', async () => {
		const result = await submitForm(formUrlOf('form-for-colleagues.json'), ['a lighthouse at dawn', '16:9'], n8nLog);
		const shown = /<img src="([^"]+)"/.exec(result.html)?.[1];
		expect(shown).toContain('/files/outputs/');
		expect(result.file.type).toBe('image/png');
		expect(result.file.fileName).toMatch(/^a-lighthouse-at-dawn-.*\.png$/);
		expect(sha256(result.file.bytes)).toBe(sha256(await served(shown!)));
		const sent = sb.engine.log
			.filter((e) => e.method === 'POST' && e.path === '/v1/generations')
			.map((e) => e.body as { prompt?: string; options?: Record<string, unknown> });
		expect(sent.find((b) => b.prompt === 'a lighthouse at dawn')?.options).toMatchObject({ aspect: '16:9' });
	});

	test('a photo uploaded in the form comes back as a video: the photo reached the service intact', async () => {
		const photo = await served(`${sb.rootUrl}/examples/pet-royal.png`);
		const result = await submitForm(
			formUrlOf('photo-to-video.json'),
			[{ fileName: 'my-cat.png', type: 'image/png', bytes: photo }, 'the cat blinks, gentle push-in'],
			n8nLog,
		);
		expect(result.file.type).toBe('video/mp4');
		expect(result.file.fileName).toMatch(/^the-cat-blinks-gentle-push-in-.*\.mp4$/);
		const videoUrl = /<a href="([^"]+)"/.exec(result.html)?.[1];
		expect(sha256(result.file.bytes)).toBe(sha256(await served(videoUrl!)));
		const sent = sb.engine.log
			.filter((e) => e.method === 'POST' && e.path === '/v1/generations')
			.map((e) => e.body as { prompt?: string; imageUrls?: string[] });
		const [photoUrl] = sent.find((b) => b.prompt === 'the cat blinks, gentle push-in')?.imageUrls ?? [];
		expect(sha256(await served(photoUrl))).toBe(sha256(photo));
	});
});

describe('Slack and Google Drive: the parameters take the file the step before makes', () => {
	const nodeOf = (file: string, name: string) => readRecipe(file).nodes.find((n) => n.name === name)!;

	test('Google Drive uploads binary property data under the name the node gave the file', () => {
		const drive = nodeOf('prompts-to-google-drive.json', 'Upload to Drive');
		expect(drive.parameters).toMatchObject({
			resource: 'file',
			operation: 'upload',
			inputDataFieldName: 'data',
			name: '={{ $binary.data.fileName }}',
		});
	});

	test('Slack uploads the video the trigger downloaded into data, with the prompt as the message', () => {
		const trigger = nodeOf('finished-videos-to-slack.json', 'Video Finished');
		expect(trigger.parameters).toMatchObject({ downloadOutputs: true, kinds: ['video'], outcomes: ['succeeded'] });
		const slack = nodeOf('finished-videos-to-slack.json', 'Post to Slack');
		expect(slack.parameters).toMatchObject({ resource: 'file', operation: 'upload', binaryPropertyName: 'data' });
		expect(slack.parameters.options).toMatchObject({
			fileName: '={{ $binary.data.fileName }}',
			initialComment: '=New video: {{ $json.prompt }}',
		});
	});
});
