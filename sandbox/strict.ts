// Strict mode's record shapes: what the spec allows a v1 service to send that the lenient sandbox does not.
// "Within v1, fields are only added": every record strict mode answers or delivers carries fields no client
// knows, and the models lose the two fields the spec never defines.
import type { Model } from './types';

/** Fields no client knows, of several JSON types, so a client that copies or checks records too closely shows. */
export const UNKNOWN_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({
	strictAddedText: 'a field added within v1; clients ignore it',
	strictAddedObject: { note: 'nested', list: [1, 'two', null] },
	strictAddedNull: null,
});

/** The model fields this sandbox adds and the spec does not define. */
const SANDBOX_MODEL_FIELDS = ['negative_prompt', 'end_frame'];

/** The record with the unknown fields added (strict), or the record itself. */
export function withUnknownFields<T extends object>(record: T, strict: boolean): T {
	return strict ? { ...record, ...UNKNOWN_FIELDS } : record;
}

/** A model as GET /models answers it: in strict mode without the sandbox's own fields, with unknown ones. */
export function publicModel(model: Model, strict: boolean): Record<string, unknown> {
	if (!strict) return model as unknown as Record<string, unknown>;
	const copy: Record<string, unknown> = { ...model };
	for (const field of SANDBOX_MODEL_FIELDS) delete copy[field];
	return withUnknownFields(copy, true);
}

/** An app as GET /apps answers it; in strict mode it and each of its looks carry unknown fields. */
export function publicApp(app: Record<string, unknown>, strict: boolean): Record<string, unknown> {
	if (!strict) return app;
	const looks = Array.isArray(app.looks) ? app.looks.map((look) => withUnknownFields(look as object, true)) : app.looks;
	return withUnknownFields({ ...app, looks }, true);
}
