// The one error type of the sandbox: an API error answer (status, code, message, issues, extra headers).
export class ApiFailure extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly issues?: string[],
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}
