import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

test('a one-node workflow through WorkflowExecute generates an image and returns it as binary data', async () => {
	const result = await generate(backend.apiCredentials, { prompt: '={{ $json.prompt }}' }, [
		{ json: { prompt: 'a lighthouse at dawn' } },
	]);
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(1);
	const [item] = result.items;
	expect(item.json.status).toBe('SUCCEEDED');
	expect(item.json.prompt).toBe('a lighthouse at dawn'); // the expression was evaluated
	expect(item.json.cost).toBe(5);
	expect(item.binary?.data.mimeType).toBe('image/png');
	expect(item.binary?.data.fileExtension).toBe('png');
	expect(item.pairedItem).toEqual({ item: 0 });
	expect(backend.charges()).toBe(5);
});
