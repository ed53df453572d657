// The resume webhook the node lists for pause mode. n8n serves it under the execution's resume URL
// (/webhook-waiting/<execution id>?signature=…) only while the execution waits; its token is checked
// by n8n, the delivery's signature by resumeWebhook.
import type { IWebhookDescription } from 'n8n-workflow';

export const resumeWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		path: '',
		isFullPath: true,
		restartWebhook: true,
	},
];
